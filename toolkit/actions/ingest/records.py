"""Landing lines -> the feed's typed records and the rejected ones, as Hive streaming's record writers did:
- `delimited` is DelimitedInputWriter: fields split on `delimiter` (a `quote`d field may hold it, a doubled quote
  inside is one quote; an empty `quote` means none), mapped to columns by `fields` (reordered, `_` dropped; a
  column no field names is null). Spark's CSV parser (`from_csv`) splits; the fields are counted apart, since
  it pads and truncates. An empty field is null; a quoted empty field `""` is the empty string for a string
  column (null for other types).
- `json` is StrictJsonWriter, stricter: a line must be one JSON object whose keys are exactly the column names.
  A key that is no column rejects, and so does a missing key (a producer writes `null` for a null: nothing is
  guessed). Values convert by Spark's JSON reader, as Hive's JsonSerDe did: a JSON string is no number, a
  number is text for a string column; timestamp and date columns take a string, read as below.
- `regex` is StrictRegexWriter: the whole line must match `pattern`; group i is the i-th entry of `fields`.
Other values convert with `try_cast` (ANSI-safe: no error, a null to test); timestamp columns and the event time
read ISO 8601 in the feed's time zone (`event_times`). A line holding U+0000 or U+FFFD (what Spark decodes
invalid UTF-8 to) is no text. Only Spark functions: no Python UDF slows the stream.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolkit.actions.ingest.event_times import instant
from toolkit.core.entities.model import DROPPED, Column, Ingest, IngestFormat

if TYPE_CHECKING:
    from pyspark.sql import Column as SparkColumn
    from pyspark.sql import DataFrame

_CORRUPT = "_corrupt"
_TIMESTAMPS = ("timestamp", "timestamp_ltz")
# Of one format's lines: each text column's text, the values already typed, the checks of the record's shape.
_Fields = tuple["dict[str, SparkColumn]", "dict[str, SparkColumn]", "list[SparkColumn]"]


@dataclass(frozen=True)
class Parsed:
    """`accepted`: the feed's columns, typed, then `_time` (event time, null by arrival), `_file`, `_line`;
    `rejected`: `file`, `line`, `offset`, `reason`, `record` (the line). Each line is in exactly one of them. Both are
    filters of `checked` (`value`, `file`, `offset`, `line`, `reason`, the typed values, `_time`): a caller that reads
    both caches it, so that each line is parsed once."""

    accepted: DataFrame
    rejected: DataFrame
    checked: DataFrame


def parse_records(lines: DataFrame, ingest: Ingest, columns: Sequence[Column], zone: str) -> Parsed:
    """Parse `lines` (`value`, null for a line over the size limit, `file`, `offset`, `line`) as `ingest` says into
    `columns`; event times in `zone` (IANA). A header is the line at offset 0 of each file."""
    from pyspark.sql import functions as F

    if ingest.header:
        lines = lines.filter(F.col("offset") != 0)
    if ingest.format is IngestFormat.JSON:
        texts, values, shape = _json_fields(columns)
    elif ingest.format is IngestFormat.REGEX:
        texts, values, shape = _regex_fields(ingest, columns)
    else:
        texts, values, shape = _delimited_fields(ingest, columns)
    # Three steps, each naming what the next reads, so that no costly expression (the CSV or JSON parse, a
    # field's text) is computed again inside another: Spark keeps apart projections of expensive expressions.
    shape = [F.when(F.col("value").isNull(), F.lit("the line is longer than the feed's ingest.max-line-size")),
             F.when(F.col("value").contains("\u0000") | F.col("value").contains("\ufffd"),
                    F.lit("the line is not text (UTF-8)")), *shape]
    fields = lines.select(
        "value", "file", "offset", "line", *[check.alias(f"_c{k}") for k, check in enumerate(shape)],
        *[(texts[c.name] if c.name in texts else values[c.name]).alias(f"_s{i}") for i, c in enumerate(columns)])
    field = {c.name: F.col(f"_s{i}") for i, c in enumerate(columns)}
    time = F.lit(None).cast("timestamp")
    if not ingest.by_arrival:
        text = field[ingest.time] if ingest.time in texts else field[ingest.time].cast("string")
        time = _event_time(text, next(c for c in columns if c.name == ingest.time), zone)
    typed = fields.select(
        "*", *[(_typed(field[c.name], c, zone) if c.name in texts else field[c.name]).alias(f"_v{i}")
               for i, c in enumerate(columns)], time.alias("_time"))
    checks = [F.col(f"_c{k}") for k in range(len(shape))]
    checks += [_conversion_error(field[c.name], F.col(f"_v{i}"), c) for i, c in enumerate(columns) if c.name in texts]
    if not ingest.by_arrival:
        text = field[ingest.time] if ingest.time in texts else field[ingest.time].cast("string")
        stamp = F.col("_time")
        checks.append(F.when(stamp.isNull() & (text != ""), F.concat(
            F.lit(f"column {ingest.time}: value '"), text, F.lit("' is not an ISO 8601 time or date")))
            .when(stamp.isNull(), F.lit(f"column {ingest.time}: no event time (empty or null)")))
    checked = typed.select("value", "file", "offset", "line", F.coalesce(*checks).alias("reason"),
                           *[f"_v{i}" for i in range(len(columns))], "_time")
    accepted = checked.filter(F.col("reason").isNull()).select(
        *typed_values(columns), "_time", F.col("file").alias("_file"), F.col("line").alias("_line"))
    rejected = checked.filter(F.col("reason").isNotNull()).select(
        "file", "line", "offset", "reason", F.col("value").alias("record"))
    return Parsed(accepted=accepted, rejected=rejected, checked=checked)


def typed_values(columns: Sequence[Column]) -> list[SparkColumn]:
    """The feed's columns, typed and named, of `Parsed.checked` or a frame derived from it."""
    from pyspark.sql import functions as F

    return [F.col(f"_v{i}").alias(c.name) for i, c in enumerate(columns)]


def _field_names(ingest: Ingest, columns: Sequence[Column]) -> tuple[str, ...]:
    return ingest.fields or tuple(column.name for column in columns)


def _mapped(fields: Sequence[str], field_value: list[SparkColumn],
            columns: Sequence[Column]) -> dict[str, SparkColumn]:
    """Each column's text from its field (the last one naming it), null for a column no field names."""
    from pyspark.sql import functions as F

    by_name = {name: value for name, value in zip(fields, field_value, strict=True) if name != DROPPED}
    return {column.name: by_name.get(column.name, F.lit(None).cast("string")) for column in columns}


def _delimited_fields(ingest: Ingest, columns: Sequence[Column]) -> _Fields:
    from pyspark.sql import functions as F

    fields = _field_names(ingest, columns)
    schema = ", ".join(f"`f{i}` string" for i in range(len(fields)))
    options = {"sep": ingest.delimiter, "quote": ingest.quote, "escape": ingest.quote or "\\",
               "nullValue": "\u0000"}  # never in a text line: so an unquoted empty field is null, a quoted "" is ""
    parsed = F.from_csv(F.col("value"), schema, options)
    unquoted = F.col("value")
    if ingest.quote:
        q = _literal(ingest.quote)
        unquoted = F.when(unquoted.contains(ingest.quote),  # most lines have no quote: no regular expression
                          F.regexp_replace(unquoted, f"{q}(?:(?!{q}).|{q}{q})*(?:{q}|$)", "")).otherwise(unquoted)
    found = F.size(F.split(unquoted, _literal(ingest.delimiter), -1))
    count_error = F.when(found != len(fields), F.concat(
        F.lit("the record has "), found.cast("string"),
        F.lit(f" fields, expected {len(fields)} (delimiter '{ingest.delimiter}')")))
    return _mapped(fields, [parsed[f"f{i}"] for i in range(len(fields))], columns), {}, [count_error]


def _regex_fields(ingest: Ingest, columns: Sequence[Column]) -> _Fields:
    from pyspark.sql import functions as F

    fields = _field_names(ingest, columns)
    whole = f"^(?:{ingest.pattern})$"
    groups = [F.regexp_extract(F.col("value"), whole, i + 1) for i in range(len(fields))]
    match_error = F.when(~F.col("value").rlike(whole), F.lit(f"the line does not match the pattern {ingest.pattern}"))
    return _mapped(fields, groups, columns), {}, [match_error]


def _json_fields(columns: Sequence[Column]) -> _Fields:
    """Text for string and time columns; the others' values as Spark's JSON reader converts them.

    One parse of the record and one of its keys per line; only a record that does not convert is parsed again,
    column by column, to name the column.
    """
    from pyspark.sql import functions as F

    names = F.array(*[F.lit(column.name) for column in columns])
    keys = F.json_object_keys(F.col("value"))
    extra, missing = F.array_except(keys, names), F.array_except(names, keys)
    shape = [
        F.when(keys.isNull(), F.lit("the line is not a JSON object")),
        F.when(F.size(extra) > 0, F.concat(F.lit("the keys "), F.array_join(extra, ", "),
                                           F.lit(f" are no columns (expected {_listed(columns)})"))),
        F.when(F.size(missing) > 0, F.concat(F.lit("the keys "), F.array_join(missing, ", "),
                                             F.lit(f" are missing (expected {_listed(columns)})"))),
    ]
    record = _from_json(columns)
    shown = F.from_json(F.col("value"), "map<string,string>")  # each value's JSON text, for the reasons
    per_column = [F.when(_from_json([column])[_CORRUPT].isNotNull(), F.concat(
        F.lit(f"column {column.name}: JSON value '"), F.coalesce(shown[column.name], F.lit("")),
        F.lit(f"' does not convert to {column.type}"))) for column in columns]
    shape.append(F.when(record[_CORRUPT].isNotNull(), F.coalesce(
        *per_column, F.lit("the line is not a JSON record of the columns' types"))))
    texts = {column.name: record[column.name] for column in columns if _is_text(column)}
    values = {column.name: record[column.name] for column in columns if not _is_text(column)}
    return texts, values, shape


def _from_json(columns: Sequence[Column]) -> SparkColumn:
    """The line read as a struct of `columns` (string and time columns as text) and `_corrupt`."""
    from pyspark.sql import functions as F

    schema = ", ".join(f"{_quoted(c.name)} {'string' if _is_text(c) else c.type}" for c in columns)
    return F.from_json(F.col("value"), f"{schema}, {_CORRUPT} string",
                       {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": _CORRUPT})


def _typed(text: SparkColumn, column: Column, zone: str) -> SparkColumn:
    """`text` as the column's type: empty is null but for strings; timestamps are read as event times are."""
    from pyspark.sql import functions as F

    kind = column.type.strip().lower()
    if kind == "string":
        return text
    present = F.when(text != "", text)
    return instant(present, zone) if kind in _TIMESTAMPS else present.try_cast(column.type)


def _conversion_error(text: SparkColumn, value: SparkColumn, column: Column) -> SparkColumn:
    from pyspark.sql import functions as F

    return F.when(text.isNotNull() & (text != "") & value.isNull(), F.concat(
        F.lit(f"column {column.name}: value '"), text, F.lit(f"' does not convert to {column.type}")))


def _event_time(text: SparkColumn, column: Column, zone: str) -> SparkColumn:
    """A date column's event time is its midnight in `zone`; any other column's text is read as ISO 8601."""
    if column.type.strip().lower() == "date":
        return instant(text.try_cast("date").cast("string"), zone)
    return instant(text, zone)


def _is_text(column: Column) -> bool:
    """Columns whose JSON value is read as text: strings, and times (read here, not by the JSON reader)."""
    return column.type.strip().lower() in ("string", "date", *_TIMESTAMPS)


def _literal(text: str) -> str:
    """`text` as a Java regular expression that matches it literally."""
    return "".join(char if char.isalnum() else "\\" + char for char in text)


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _listed(columns: Sequence[Column]) -> str:
    return ", ".join(column.name for column in columns)
