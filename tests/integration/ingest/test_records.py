"""Landing lines -> typed records and rejected ones, for each format, with every reason a record is rejected.

Each test compares both DataFrames exactly; `_both` also checks that every line is in exactly one of them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from chispa import assert_df_equality
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from toolkit.actions.ingest.records import Parsed, parse_records
from toolkit.core.entities.model import Column, Ingest, IngestFormat
from toolkit.core.storage.landing_lines import LineRange, read_lines

REJECTED = "file string, line long, offset long, reason string, record string"
COLUMNS = (Column(name="ts", type="string"), Column(name="user", type="string"), Column(name="page", type="int"))
ACCEPTED = "ts string, user string, page int, _time timestamp, _file string, _line long"


def _ingest(format: IngestFormat, **options: object) -> Ingest:
    return Ingest(landing="/landing", format=format, dead_letters="/dead", **options)  # type: ignore[arg-type]


def _lines(spark: SparkSession, *values: str) -> DataFrame:
    """Lines of one file "f", line i at offset 100 * i (what the dead letters must carry through)."""
    rows = [(value, "f", 100 * (i + 1), i + 1) for i, value in enumerate(values)]
    return spark.createDataFrame(rows, "value string, file string, offset long, line long")


def _at(text: str) -> datetime:
    """An instant, as Spark shows it in the tests' session time zone (UTC)."""
    return datetime.fromisoformat(text).astimezone(timezone.utc).replace(tzinfo=None)


def _both(spark: SparkSession, parsed: Parsed, accepted: list[tuple], rejected: list[tuple],
          accepted_schema: str = ACCEPTED) -> None:
    assert_df_equality(parsed.accepted, spark.createDataFrame(accepted, accepted_schema),
                       ignore_row_order=True, ignore_nullable=True)
    with_offsets = [row if len(row) == 5 else (row[0], row[1], None if row[1] is None else 100 * row[1], *row[2:])
                    for row in rejected]
    assert_df_equality(parsed.rejected, spark.createDataFrame(with_offsets, REJECTED),
                       ignore_row_order=True, ignore_nullable=True)


def _parse(spark: SparkSession, ingest: Ingest, values: Sequence[str], columns: Sequence[Column] = COLUMNS,
           zone: str = "UTC") -> Parsed:
    return parse_records(_lines(spark, *values), ingest, columns, zone)


# ----------------------------------------------------------------------------------------------- delimited
def test_delimited_fields_are_reordered_dropped_and_quoted(spark: SparkSession) -> None:
    ingest = _ingest(IngestFormat.DELIMITED, fields=("page", "_", "user", "ts"), time="ts")
    parsed = _parse(spark, ingest, ['7,x,"a,b",2026-11-22T10:00Z', '8,,"say ""hi""",2026-11-22T11:00:00+01:00',
                                    ',x,"",2026-11-22'])
    _both(spark, parsed, [
        ("2026-11-22T10:00Z", "a,b", 7, _at("2026-11-22T10:00+00:00"), "f", 1),
        ("2026-11-22T11:00:00+01:00", 'say "hi"', 8, _at("2026-11-22T10:00+00:00"), "f", 2),
        ("2026-11-22", "", None, _at("2026-11-22T00:00+00:00"), "f", 3),
    ], [])


def test_delimited_rejects_counts_types_times_and_binary(spark: SparkSession) -> None:
    ingest = _ingest(IngestFormat.DELIMITED, delimiter="|", quote="", time="ts")
    parsed = _parse(spark, ingest, ["2026-11-22T10:00Z|u|1", "2026-11-22T10:00Z|u", "a|b|1|2", "2026-11-22T10:00Z|u|x1",
                                    "yesterday|u|1", "|u|1", "2026-11-22T10:00Z|\u0000|1", "2026-11-22T10:00Z|\ufffd|1",
                                    '"2026-11-22T10:00Z"|u|1'])
    _both(spark, parsed, [("2026-11-22T10:00Z", "u", 1, _at("2026-11-22T10:00+00:00"), "f", 1)], [
        ("f", 2, "the record has 2 fields, expected 3 (delimiter '|')", "2026-11-22T10:00Z|u"),
        ("f", 3, "the record has 4 fields, expected 3 (delimiter '|')", "a|b|1|2"),
        ("f", 4, "column page: value 'x1' does not convert to int", "2026-11-22T10:00Z|u|x1"),
        ("f", 5, "column ts: value 'yesterday' is not an ISO 8601 time or date", "yesterday|u|1"),
        ("f", 6, "column ts: no event time (empty or null)", "|u|1"),
        ("f", 7, "the line is not text (UTF-8)", "2026-11-22T10:00Z|\u0000|1"),
        ("f", 8, "the line is not text (UTF-8)", "2026-11-22T10:00Z|\ufffd|1"),
        ("f", 9, "column ts: value '\"2026-11-22T10:00Z\"' is not an ISO 8601 time or date", '"2026-11-22T10:00Z"|u|1'),
    ])


def test_a_quoted_delimiter_is_no_field_boundary_when_counting(spark: SparkSession) -> None:
    parsed = _parse(spark, _ingest(IngestFormat.DELIMITED), ['a,"b,c",1', 'a,"b,c"', '"unclosed,b,1'])
    _both(spark, parsed, [("a", "b,c", 1, None, "f", 1)], [
        ("f", 2, "the record has 2 fields, expected 3 (delimiter ',')", 'a,"b,c"'),
        ("f", 3, "the record has 1 fields, expected 3 (delimiter ',')", '"unclosed,b,1'),
    ])


@pytest.mark.parametrize(("delimiter", "quote"), [("\t", "'"), ("||", '"'), (".", "*")])
def test_any_delimiter_and_quote_are_literal(spark: SparkSession, delimiter: str, quote: str) -> None:
    d, q = delimiter, quote
    parsed = _parse(spark, _ingest(IngestFormat.DELIMITED, delimiter=d, quote=q),
                    [f"t{d}{q}u{d}{q}{q}v{q}{d}1", f"t{d}u"])
    _both(spark, parsed, [("t", f"u{d}{q}v", 1, None, "f", 1)],
          [("f", 2, f"the record has 2 fields, expected 3 (delimiter '{d}')", f"t{d}u")])


def test_a_header_line_is_no_record(spark: SparkSession) -> None:
    """The header is the line at offset 0 of each file (a read that starts later, after an append, has none)."""
    lines = spark.createDataFrame([("ts,user,page", "f", 0, 1), ("t,u,1", "f", 13, 2), ("ts,user,page", "g", 0, 1),
                                   ("t,u,2", "h", 40, None)], "value string, file string, offset long, line long")
    parsed = parse_records(lines, _ingest(IngestFormat.DELIMITED, header=True), COLUMNS, "UTC")
    _both(spark, parsed, [("t", "u", 1, None, "f", 2), ("t", "u", 2, None, "h", None)], [])


def test_times_without_offset_are_in_the_feeds_zone_across_a_dst_change(spark: SparkSession) -> None:
    columns = (Column(name="at", type="timestamp"), Column(name="day", type="date"))
    schema = "at timestamp, day date, _time timestamp, _file string, _line long"
    by_at = _parse(spark, _ingest(IngestFormat.DELIMITED, time="at"),
                   ["2026-03-29T01:30,2026-03-29", "2026-03-29T03:30,2026-03-29", "2026-03-29T02:30,2026-03-29",
                    "2026-10-25T02:30,2026-10-25", "2026-10-25T02:30+01:00,2026-10-25", "2026-03-29T12:00Z,x"],
                   columns, "Europe/Berlin")
    _both(spark, by_at, [
        (_at("2026-03-29T00:30+00:00"), date(2026, 3, 29), _at("2026-03-29T00:30+00:00"), "f", 1),
        (_at("2026-03-29T01:30+00:00"), date(2026, 3, 29), _at("2026-03-29T01:30+00:00"), "f", 2),
        (_at("2026-03-29T01:30+00:00"), date(2026, 3, 29), _at("2026-03-29T01:30+00:00"), "f", 3),  # in the gap
        (_at("2026-10-25T00:30+00:00"), date(2026, 10, 25), _at("2026-10-25T00:30+00:00"), "f", 4),  # earlier
        (_at("2026-10-25T01:30+00:00"), date(2026, 10, 25), _at("2026-10-25T01:30+00:00"), "f", 5),
    ], [("f", 6, "column day: value 'x' does not convert to date", "2026-03-29T12:00Z,x")], schema)
    by_day = _parse(spark, _ingest(IngestFormat.DELIMITED, time="day"), ["2026-03-29T12:00Z,2026-03-29",
                                                                         "2026-10-25T12:00Z,2026-10-25"],
                    columns, "Europe/Berlin")
    _both(spark, by_day, [
        (_at("2026-03-29T12:00+00:00"), date(2026, 3, 29), _at("2026-03-28T23:00+00:00"), "f", 1),
        (_at("2026-10-25T12:00+00:00"), date(2026, 10, 25), _at("2026-10-24T22:00+00:00"), "f", 2),
    ], [], schema)


@pytest.mark.parametrize("text, expected", [
    ("2026-01-01T10:00:00Z", "2026-01-01T10:00:00+00:00"),  # the usual spelling, read without a regular expression
    ("2026-01-01 10:00:00Z", "2026-01-01T10:00:00+00:00"),
    ("2026-01-01T10:00:0 Z", None),  # 20 characters, which Spark's cast reads as 10:00:00
    ("2026-01-01T10:00:00z", None), ("+026-01-01T10:00:00Z", None), ("2026-02-30T10:00:00Z", None),
    ("\u0662\u0660\u0662\u0666-01-01T10:00:00Z", None),  # digits, but not ASCII ones
])
def test_the_usual_spelling_of_a_time_is_read_only_when_it_is_iso_8601(spark: SparkSession, text: str,
                                                                         expected: str | None) -> None:
    from toolkit.actions.ingest.event_times import instant

    found = spark.createDataFrame([(text,)], "t string").select(instant(F.col("t"), "UTC").alias("at")).first()
    assert found is not None
    assert found["at"] == (None if expected is None else _at(expected))


# ----------------------------------------------------------------------------------------------- json
def test_json_is_strict_about_keys_and_types(spark: SparkSession) -> None:
    ingest = _ingest(IngestFormat.JSON, time="ts")
    parsed = _parse(spark, ingest, [
        '{"page": 3, "user": "u", "ts": "2026-11-22T10:00Z"}',
        '{"ts": "2026-11-22T10:00Z", "user": null, "page": null}',
        '{"ts": "2026-11-22T10:00Z", "user": "u", "page": "3"}',
        '{"ts": "2026-11-22T10:00Z", "user": "u", "page": 3.5}',
        '{"ts": "2026-11-22T10:00Z", "user": "u", "page": 3, "extra": 1}', '{"ts": "2026-11-22T10:00Z", "page": 3}',
        '[1, 2]', 'not json', '{"ts": "soon", "user": 5, "page": 1}'])
    _both(spark, parsed, [
        ("2026-11-22T10:00Z", "u", 3, _at("2026-11-22T10:00+00:00"), "f", 1),
        ("2026-11-22T10:00Z", None, None, _at("2026-11-22T10:00+00:00"), "f", 2),
    ], [
        ("f", 3, "column page: JSON value '3' does not convert to int",
         '{"ts": "2026-11-22T10:00Z", "user": "u", "page": "3"}'),
        ("f", 4, "column page: JSON value '3.5' does not convert to int",
         '{"ts": "2026-11-22T10:00Z", "user": "u", "page": 3.5}'),
        ("f", 5, "the keys extra are no columns (expected ts, user, page)",
         '{"ts": "2026-11-22T10:00Z", "user": "u", "page": 3, "extra": 1}'),
        ("f", 6, "the keys user are missing (expected ts, user, page)", '{"ts": "2026-11-22T10:00Z", "page": 3}'),
        ("f", 7, "the line is not a JSON object", "[1, 2]"),
        ("f", 8, "the line is not a JSON object", "not json"),
        ("f", 9, "column ts: value 'soon' is not an ISO 8601 time or date", '{"ts": "soon", "user": 5, "page": 1}'),
    ])


def test_json_reads_each_type_and_times_in_the_feeds_zone(spark: SparkSession) -> None:
    columns = (Column(name="at", type="timestamp"), Column(name="day", type="date"), Column(name="n", type="bigint"),
               Column(name="ok", type="boolean"), Column(name="note", type="string"))
    schema = "at timestamp, day date, n bigint, ok boolean, note string, _time timestamp, _file string, _line long"
    parsed = _parse(spark, _ingest(IngestFormat.JSON, time="at"), [
        '{"at": "2026-07-01T12:00", "day": "2026-07-01", "n": 5000000000, "ok": true, "note": 12}',
        '{"at": "2026-07-01T12:00", "day": "2026-07-01", "n": 1, "ok": "yes", "note": "x"}',
        '{"at": 1782900000, "day": "2026-07-01", "n": 1, "ok": false, "note": "x"}',
        '{"at": "2026-07-01T12:00", "day": "July", "n": 1, "ok": false, "note": "x"}',
    ], columns, "Europe/Berlin")
    _both(spark, parsed, [
        (_at("2026-07-01T10:00+00:00"), date(2026, 7, 1), 5000000000, True, "12", _at("2026-07-01T10:00+00:00"),
         "f", 1),
    ], [
        ("f", 2, "column ok: JSON value 'yes' does not convert to boolean",
         '{"at": "2026-07-01T12:00", "day": "2026-07-01", "n": 1, "ok": "yes", "note": "x"}'),
        ("f", 3, "column at: value '1782900000' does not convert to timestamp",
         '{"at": 1782900000, "day": "2026-07-01", "n": 1, "ok": false, "note": "x"}'),
        ("f", 4, "column day: value 'July' does not convert to date",
         '{"at": "2026-07-01T12:00", "day": "July", "n": 1, "ok": false, "note": "x"}'),
    ], schema)


# ----------------------------------------------------------------------------------------------- regex
def test_regex_takes_one_group_per_field_and_the_whole_line(spark: SparkSession) -> None:
    ingest = _ingest(IngestFormat.REGEX, pattern=r"(\S+) (\S+) (\S+) (\d+)", fields=("ts", "user", "_", "page"))
    parsed = _parse(spark, ingest, ["t u skip 12", "t u skip 12 trailing", "t u skip", "t u skip 99999999999"])
    _both(spark, parsed, [("t", "u", 12, None, "f", 1)], [
        ("f", 2, r"the line does not match the pattern (\S+) (\S+) (\S+) (\d+)", "t u skip 12 trailing"),
        ("f", 3, r"the line does not match the pattern (\S+) (\S+) (\S+) (\d+)", "t u skip"),
        ("f", 4, "column page: value '99999999999' does not convert to int", "t u skip 99999999999"),
    ])


def test_a_file_that_is_not_text_is_rejected_line_by_line(spark: SparkSession, tmp_path: Path) -> None:
    """Read as the runner reads: invalid UTF-8 becomes U+FFFD, a NUL byte stays; CRLF ends are no part of a line."""
    landing = tmp_path / "landing"
    landing.mkdir()
    (landing / "mixed.csv").write_bytes(b"t,u,1\r\n\xff\xfe,u,2\r\nt,\x00,3\r\n")
    uri = f"file://{landing}/mixed.csv"
    lines = read_lines(spark, [LineRange(uri, 0, 22)], split_bytes=1 << 20, max_line_bytes=100)
    parsed = parse_records(lines, _ingest(IngestFormat.DELIMITED), COLUMNS, "UTC")
    _both(spark, parsed, [("t", "u", 1, None, uri, 1)], [
        (uri, 2, 7, "the line is not text (UTF-8)", "\ufffd\ufffd,u,2"),
        (uri, 3, 15, "the line is not text (UTF-8)", "t,\u0000,3"),
    ])


def test_a_line_over_the_size_limit_is_rejected_without_its_text(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "long.csv").write_bytes(b"t,u,1\n" + b"t,u," + b"9" * 200 + b"\nt,u,3\n")
    uri = f"file://{tmp_path}/long.csv"
    lines = read_lines(spark, [LineRange(uri, 0, 218)], split_bytes=1 << 20, max_line_bytes=100)
    parsed = parse_records(lines, _ingest(IngestFormat.DELIMITED), COLUMNS, "UTC")
    _both(spark, parsed, [("t", "u", 1, None, uri, 1), ("t", "u", 3, None, uri, 3)],
          [(uri, 2, 6, "the line is longer than the feed's ingest.max-line-size", None)])


# ----------------------------------------------------------------------------------------------- every line once
@pytest.mark.parametrize(("ingest", "values"), [
    (_ingest(IngestFormat.DELIMITED, time="ts"), ["2026-11-22T10:00Z,u,1", "x,u,1", "a,b", "", "\ufffd", "t,u,z"]),
    (_ingest(IngestFormat.JSON), ['{"ts": "t", "user": "u", "page": 1}', "{}", "", "\u0000", '{"ts": 1}']),
    (_ingest(IngestFormat.REGEX, pattern=r"(\S*) (\S*) (\S*)"), ["t u 1", "t u x", "t u", "", "t  "]),
])
def test_every_line_is_accepted_or_rejected_exactly_once(spark: SparkSession, ingest: Ingest,
                                                         values: list[str]) -> None:
    parsed = _parse(spark, ingest, values)
    seen = parsed.accepted.select(F.col("_line").alias("line")).unionAll(parsed.rejected.select("line"))
    assert_df_equality(seen, spark.createDataFrame([(i + 1,) for i in range(len(values))], "line long"),
                       ignore_row_order=True, ignore_nullable=True)
    assert parsed.accepted.count() >= 1 and parsed.rejected.count() >= 2
