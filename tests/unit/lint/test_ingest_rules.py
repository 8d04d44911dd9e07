"""The rules on a feed's `ingest`, `columns`, storage `format` and ingest properties (FD026 to FD035): each reports
its bad example at the value's line with its message, and passes the fix. The column types they read are
`column_types`'s."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.unit.lint.overlay import TEMPLATE
from tests.unit.lint.test_feed_rules import BACKUP, ERROR, HOURLY, PRIMARY, TABLE, feed, line_of, lint, summary
from toolkit.authoring.lint.runner import lint_paths
from toolkit.core.entities.column_types import ColumnType, parse_column_type
from toolkit.errors import UsageError

COLUMNS = "columns:\n  - {name: ts, type: string}\n  - {name: user, type: bigint}\n  - {name: page, type: string}\n"
PATHS = "  landing: /landing/orders\n  dead-letters: /landing/orders-rejected\n"


def ingest(body: str, columns: str = COLUMNS) -> str:
    """A file feed with `columns` and an ingest section of `body` plus the landing and dead-letter folders."""
    return feed(extra=f"{columns}ingest:\n{PATHS}{body}")


def found(tmp_path: Path, code: str, text: str) -> list:
    return [p for p in lint(tmp_path, {"orders": text}) if p.code == code]


@pytest.mark.parametrize(("text", "sql"), [
    ("STRING", "string"), ("Integer", "int"), ("long", "bigint"), ("short", "smallint"), ("byte", "tinyint"),
    ("real", "float"), ("decimal", "decimal(10,0)"), ("numeric(5)", "decimal(5,0)"), ("decimal( 12 , 2 )",
    "decimal(12,2)"), ("varchar(20)", "varchar(20)"), ("CHAR(1)", "char(1)"), ("timestamp_ntz", "timestamp_ntz"),
    ("date", "date"), ("binary", "binary"), ("boolean", "boolean"), ("double", "double"),
])
def test_column_types_fold_spark_synonyms_into_the_ddl_name(text: str, sql: str) -> None:
    assert parse_column_type(text).sql == sql


def test_a_decimal_keeps_precision_and_scale() -> None:
    assert parse_column_type("decimal(38,38)") == ColumnType("decimal", (38, 38))


@pytest.mark.parametrize(("text", "message"), [
    ("text", "is not a Spark SQL type this toolkit reads: use one of string, varchar(n)"),
    ("array<string>", "is a complex type, which no record field fills"),
    ("struct<a:int>", "is a complex type"),
    ("varchar", "needs one length of at least 1"),
    ("char(0)", "needs one length of at least 1"),
    ("decimal(39,2)", "needs a precision from 1 to 38"),
    ("decimal(4,5)", "and a scale not above it"),
    ("int(4)", "takes no parameters: write int"),
])
def test_other_types_are_refused_with_the_reason(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_column_type(text)


def test_fd026_regex_groups_pair_with_fields(tmp_path: Path) -> None:
    text = ingest("  format: regex\n  pattern: '^(\\S+) (\\S+) (\\S+) (\\S+)$'\n  fields: [ts, user, page]\n")
    problems = found(tmp_path / "bad", "FD026", text)
    assert summary(problems) == [("FD026", line_of(text, "pattern:"), ERROR)]
    assert problems[0].message == (
        "Feed 'orders': ingest.pattern has 4 capture group(s) but ingest.fields has 3 entries: give one group per "
        "field, in order (write (?:...) for a group that captures nothing, and _ in fields for a group to drop).")
    fixed = text.replace("fields: [ts, user, page]", "fields: [ts, user, _, page]")
    assert found(tmp_path / "fixed", "FD026", fixed) == []
    named = text.replace("(\\S+) (\\S+)$", "(?<user>\\S+) (?:\\S+)$")  # Java's named group, a non-capturing one
    assert found(tmp_path / "named", "FD026", named) == []


def test_fd026_a_pattern_that_does_not_compile(tmp_path: Path) -> None:
    text = ingest("  format: regex\n  pattern: '^(\\S+ (\\S+)$'\n  fields: [ts, page]\n")
    problems = found(tmp_path, "FD026", text)
    assert summary(problems) == [("FD026", line_of(text, "pattern:"), ERROR)]
    assert problems[0].message.startswith("Feed 'orders': ingest.pattern '^(\\S+ (\\S+)$' is not a regular "
                                          "expression (missing ), unterminated subpattern")


def test_fd026_regex_and_delimited_need_their_options(tmp_path: Path) -> None:
    text = ingest("  format: regex\n")
    problems = found(tmp_path / "regex", "FD026", text)
    assert summary(problems) == [("FD026", line_of(text, "format:"), ERROR)] * 2
    assert "needs ingest.fields" in problems[0].message and "needs ingest.pattern" in problems[1].message
    text = ingest("  format: delimited\n  pattern: '(.*)'\n")
    problems = found(tmp_path / "delimited", "FD026", text)
    assert summary(problems) == [("FD026", line_of(text, "format:"), ERROR), ("FD026", line_of(text, "pattern:"),
                                                                                 ERROR)]
    assert problems[1].message == ("Feed 'orders': ingest.pattern does not apply to ingest.format delimited (a line "
                                   "is split on ingest.delimiter): remove ingest.pattern.")
    fixed = ingest("  format: delimited\n  delimiter: '|'\n  header: true\n  fields: [ts, user, page]\n")
    assert found(tmp_path / "fixed", "FD026", fixed) == []


def test_fd026_json_takes_no_field_options(tmp_path: Path) -> None:
    text = ingest("  format: json\n  fields: [ts, user, page]\n  quote: ''\n  header: false\n")
    problems = found(tmp_path / "bad", "FD026", text)
    assert [p.line for p in problems] == [line_of(text, "fields:"), line_of(text, "quote:"),
                                          line_of(text, "header:")]
    assert problems[1].message == (
        "Feed 'orders': ingest.quote does not apply to ingest.format json (a JSON record names its fields: each "
        "fills the column of its name): remove ingest.quote.")
    assert found(tmp_path / "fixed", "FD026", ingest("  format: json\n")) == []


def test_fd027_column_names_are_unique_ignoring_case_and_types_are_read(tmp_path: Path) -> None:
    columns = COLUMNS + "  - {name: User, type: text}\n  - {name: tags, type: 'array<string>'}\n"
    text = ingest("  format: json\n", columns=columns)
    problems = found(tmp_path / "bad", "FD027", text)
    assert summary(problems) == [("FD027", line_of(text, "User"), ERROR)] * 2 + \
        [("FD027", line_of(text, "tags"), ERROR)]
    assert problems[0].message == ("Feed 'orders': columns[3].name 'User' is the name of columns[1] ('user'; "
                                   "Spark's names ignore case): rename one of them.")
    assert problems[1].message.startswith("Feed 'orders': columns[3] 'User': The type 'text' is not a Spark SQL "
                                          "type this toolkit reads: use one of string, varchar(n), char(n), boolean")
    assert "columns[4] 'tags': The type 'array<string>' is a complex type" in problems[2].message
    assert found(tmp_path / "fixed", "FD027", ingest("  format: json\n")) == []
    without_ingest = feed(extra="columns:\n  - {name: tags, type: 'array<string>'}\n")
    assert found(tmp_path / "no-ingest", "FD027", without_ingest) == []


def test_fd028_each_column_filled_by_one_field(tmp_path: Path) -> None:
    text = ingest("  format: delimited\n  fields: [ts, ts, _, referrer]\n")
    problems = found(tmp_path / "bad", "FD028", text)
    assert [p.message for p in problems] == [
        "Feed 'orders': columns[1] 'user' is filled by no entry of ingest.fields, so it would be null in every "
        "record: add it to ingest.fields at its field's position, or remove the column.",
        "Feed 'orders': columns[2] 'page' is filled by no entry of ingest.fields, so it would be null in every "
        "record: add it to ingest.fields at its field's position, or remove the column.",
        "Feed 'orders': ingest.fields[1] 'ts' fills column 'ts', which ingest.fields[0] fills already: a column "
        "takes one field; write _ for the other.",
        "Feed 'orders': ingest.fields[3] 'referrer' is no column of the feed: name one of its columns (ts, user, "
        "page), or write _ to drop the field.",
    ]
    assert [p.line for p in problems] == [line_of(text, "user"), line_of(text, "page"),
                                          *[line_of(text, "fields:")] * 2]
    fixed = ingest("  format: delimited\n  fields: [ts, _, USER, page]\n")
    assert found(tmp_path / "fixed", "FD028", fixed) == []


def test_fd028_a_file_feed_with_ingest_declares_columns(tmp_path: Path) -> None:
    text = ingest("  format: json\n", columns="")
    problems = found(tmp_path / "files", "FD028", text)
    assert summary(problems) == [("FD028", line_of(text, "ingest:"), ERROR)]
    assert problems[0].message == ("Feed 'orders': ingest is set on a feed stored in files, which has no columns: "
                                   "declare columns, one {name, type} per column the records fill (Spark SQL types).")
    table = feed(PRIMARY, TABLE, extra=f"ingest:\n{PATHS}  format: json\n")
    assert found(tmp_path / "table", "FD028", table) == []


def test_fd029_time_is_arrival_or_a_time_column(tmp_path: Path) -> None:
    text = ingest("  format: json\n  time: user\n")
    problems = found(tmp_path / "type", "FD029", text)
    assert summary(problems) == [("FD029", line_of(text, "time:"), ERROR)]
    assert problems[0].message == (
        "Feed 'orders': ingest.time 'user' names columns[1] 'user' of type bigint, but an event time is read from a "
        "string (ISO 8601), timestamp or date column: change the column's type, or write arrival.")
    problems = found(tmp_path / "missing", "FD029", ingest("  format: json\n  time: when\n"))
    assert [p.message for p in problems] == [
        "Feed 'orders': ingest.time 'when' is neither arrival nor a column of the feed: name the column holding each "
        "record's event time (ts, user, page), or write arrival."]
    for time in ("ts", "arrival"):
        assert found(tmp_path / time, "FD029", ingest(f"  format: json\n  time: {time}\n")) == []


def test_fd030_landing_and_dead_letters_are_fixed_folders(tmp_path: Path) -> None:
    text = feed(extra=f"{COLUMNS}ingest:\n  landing: landing/${{YEAR}}\n  dead-letters: /landing/../x\n"
                "  format: json\n")
    problems = found(tmp_path / "bad", "FD030", text)
    assert [p.message for p in problems] == [
        "Feed 'orders': ingest.landing 'landing/${YEAR}' is not an absolute path: give a folder under the cluster "
        "root that starts with /.",
        "Feed 'orders': ingest.dead-letters '/landing/../x' has a '.' or '..' segment: give the folder without them.",
    ]
    dated = feed(extra=f"{COLUMNS}ingest:\n  landing: /landing/${{YEAR}}\n  dead-letters: /x\n  format: json\n")
    assert "has a ${...} variable, but records of every time land in one folder" in \
        found(tmp_path / "dated", "FD030", dated)[0].message


def test_fd030_apart_from_each_other_and_from_the_data(tmp_path: Path) -> None:
    text = feed(extra=f"{COLUMNS}ingest:\n  landing: /data/orders/in/\n  dead-letters: /data/orders/in/bad\n"
                "  format: json\n")
    problems = found(tmp_path / "bad", "FD030", text)
    assert [p.message for p in problems] == [
        "Feed 'orders': ingest.landing '/data/orders/in' lies inside '/data/orders', the fixed folder of the feed's "
        "data location on cluster 'primary': records must never land in the data they feed (their files would be "
        "read, evicted or replicated as instances); give a folder outside it, as /landing/orders.",
        "Feed 'orders': ingest.dead-letters '/data/orders/in/bad' lies inside '/data/orders', the fixed folder of "
        "the feed's data location on cluster 'primary': records must never land in the data they feed (their files "
        "would be read, evicted or replicated as instances); give a folder outside it, as /landing/orders.",
        "Feed 'orders': ingest.dead-letters '/data/orders/in/bad' lies inside ingest.landing '/data/orders/in': "
        "rejected records would be read again as records; give it a folder of its own, such as "
        "/data/orders/in-rejected.",
    ]
    holding = feed(extra=f"{COLUMNS}ingest:\n  landing: /data\n  dead-letters: /data\n  format: json\n")
    messages = [p.message for p in found(tmp_path / "holding", "FD030", holding)]
    assert len(messages) == 3
    assert "ingest.landing '/data' holds '/data/orders'" in messages[0]
    assert any("ingest.dead-letters '/data' is also ingest.landing" in message for message in messages)
    around = feed(extra=f"{COLUMNS}ingest:\n  landing: /landing/orders\n  dead-letters: /landing\n  format: json\n")
    assert [p.message for p in found(tmp_path / "around", "FD030", around)] == [
        "Feed 'orders': ingest.dead-letters '/landing' holds ingest.landing '/landing/orders': the landing files would "
        "be taken for rejected records; give it a folder of its own, such as /landing/orders-rejected."]
    assert found(tmp_path / "fixed", "FD030", ingest("  format: json\n")) == []


def test_fd031_format_is_for_file_feeds(tmp_path: Path) -> None:
    text = feed(PRIMARY, TABLE, extra="format: orc\n")
    problems = found(tmp_path / "table", "FD031", text)
    assert summary(problems) == [("FD031", line_of(text, "format:"), ERROR)]
    assert problems[0].message == ("Feed 'orders': format orc is for feeds stored in files, but this feed is a "
                                   "catalog table on cluster 'primary', whose own storage format decides: remove "
                                   "format.")
    assert found(tmp_path / "files", "FD031", feed(extra="format: orc\n")) == []
    two = feed(PRIMARY + PRIMARY.replace("primary", "backup").replace("source", "target"), TABLE, extra="format: orc\n")
    assert "is a catalog table on clusters 'primary' and 'backup'," in found(tmp_path / "two", "FD031", two)[0].message


def test_fd034_one_finding_per_pair_of_folders_naming_every_cluster(tmp_path: Path) -> None:
    both = PRIMARY + BACKUP
    orders = ingest("  format: json\n").replace(PRIMARY, both)
    returns = feed(both, HOURLY.replace("orders", "returns"), name="returns",
                   extra=f"{COLUMNS}ingest:\n  landing: /landing/orders/returns\n  format: json\n"
                   "  dead-letters: /landing/returns-rejected\n")
    problems = [p for p in lint(tmp_path, {"orders": orders, "returns": returns}) if p.code == "FD034"]
    assert [(p.entity.name, p.line) for p in problems] == [("orders", line_of(orders, "landing:")),
                                                           ("returns", line_of(returns, "landing:"))]
    assert problems[1].message == (
        "Feed 'returns': ingest.landing '/landing/orders/returns' lies inside the ingest.landing '/landing/orders' "
        "of feed 'orders' on clusters 'primary' and 'backup'; the two ingests would read or write each other's "
        "files: give one a folder of its own, such as /landing/returns.")


def test_fd035_names_each_bad_ingest_property_with_what_to_write(tmp_path: Path) -> None:
    text = ingest("  format: json\n").replace("ingest:\n", 'properties:\n  ingest.max-files-per-batch: "-3"\n'
                                                 "  ingest.ingested-retention: a week\ningest:\n")
    problems = found(tmp_path / "bad", "FD035", text)
    assert summary(problems) == [("FD035", line_of(text, "max-files"), ERROR),
                                 ("FD035", line_of(text, "retention:"), ERROR)]
    assert problems[0].message == ("Feed 'orders': properties.ingest.max-files-per-batch is '-3': give a whole "
                                   "number of at least 1.")
    assert problems[1].message.startswith("Feed 'orders': properties.ingest.ingested-retention: Invalid frequency "
                                          "'a week': write minutes(n),")
    assert found(tmp_path / "none", "FD035", feed(extra='properties:\n  ingest.split-size: "0"\n')) == []


def test_the_template_readmes_ingest_example_lints_clean(tmp_path: Path) -> None:
    readme = (TEMPLATE / "README.md").read_text()
    example = re.search(r"### Streaming ingest.*?```yaml\n(.*?)```", readme, re.DOTALL)
    assert example is not None, "config_repo_template/README.md has no ingest example"
    clicks = (TEMPLATE / "feeds" / "clicks.yaml").read_text().replace("ACL:\n", example.group(1) + "ACL:\n")
    assert "ingest:" in clicks
    root = tmp_path / "repo"
    shutil.copytree(TEMPLATE, root)
    (root / "feeds" / "clicks.yaml").write_text(clicks)
    assert [str(p) for p in lint_paths([root]).problems] == []
