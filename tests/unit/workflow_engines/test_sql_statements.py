"""The SQL engine's text handling (no Spark): statements split at `;` outside quotes, backticks and comments,
and `${name}` replaced by the workflow's variables."""

from __future__ import annotations

import pytest

from toolkit.extensions.workflow_engines.sql_statements import split_statements, substitute
from toolkit.extensions.workflow_engines.workflow_error import WorkflowError


@pytest.mark.parametrize(("source", "statements"), [
    ("SELECT 1; SELECT 2;", ["SELECT 1", "SELECT 2"]),
    ("SELECT 1", ["SELECT 1"]),
    ("  SELECT 1  \n;\n\n  SELECT 2\n", ["SELECT 1", "SELECT 2"]),
    ("SELECT 'a;b' AS x; SELECT \"c;d\"", ["SELECT 'a;b' AS x", 'SELECT "c;d"']),
    ("SELECT 'it\\'s; here'; SELECT 2", ["SELECT 'it\\'s; here'", "SELECT 2"]),
    ('SELECT "say \\"hi;\\"" ; SELECT 2', ['SELECT "say \\"hi;\\""', "SELECT 2"]),
    ("SELECT 'it''s;' ; SELECT 2", ["SELECT 'it''s;'", "SELECT 2"]),
    ("SELECT * FROM json.`/data/a;b/*`; SELECT 2", ["SELECT * FROM json.`/data/a;b/*`", "SELECT 2"]),
    ("SELECT `a\\`; SELECT 2", ["SELECT `a\\`", "SELECT 2"]),  # no escapes in backticks
    ("SELECT 1; -- drop; this\nSELECT 2", ["SELECT 1", "SELECT 2"]),
    ("SELECT 1 -- trailing; comment", ["SELECT 1"]),
    ("SELECT 1 /* a; b */ + 2; SELECT 3", ["SELECT 1   + 2", "SELECT 3"]),
    ("SELECT 1/*x*/FROM t", ["SELECT 1 FROM t"]),
    ("SELECT '--not a comment;' ; SELECT '/* nor; this */'", ["SELECT '--not a comment;'",
                                                              "SELECT '/* nor; this */'"]),
    ("SELECT 1; /* unterminated; comment", ["SELECT 1"]),
    (";;  ;\n; SELECT 1;;; ;", ["SELECT 1"]),
    ("-- only a comment\n;\n/* and another */;", []),
    ("", []),
])
def test_split_statements(source: str, statements: list[str]) -> None:
    assert split_statements(source) == statements


def test_split_the_template_workflow() -> None:
    source = ("-- Daily rollup; header comment\n"
              "INSERT OVERWRITE DIRECTORY '${daily}'\nUSING json\nSELECT page, SUM(clicks) AS clicks\n"
              "FROM json.`${hourly}`\nGROUP BY page;\n")
    assert split_statements(source) == [
        "INSERT OVERWRITE DIRECTORY '${daily}'\nUSING json\nSELECT page, SUM(clicks) AS clicks\n"
        "FROM json.`${hourly}`\nGROUP BY page",
    ]


VARIABLES = {"hourly": "file:///x/data/2026/11/20/{00,01}", "daily": "file:///x/data/.20.toolkit-r-1",
             "spark.sql.x": "4", "my-var": "v"}


def test_substitute_replaces_every_known_variable() -> None:
    statement = "INSERT OVERWRITE DIRECTORY '${daily}' SELECT * FROM json.`${hourly}` -- ${spark.sql.x} ${my-var}"
    assert substitute(statement, VARIABLES, "workflows/w.sql") == (
        "INSERT OVERWRITE DIRECTORY 'file:///x/data/.20.toolkit-r-1' SELECT * FROM "
        "json.`file:///x/data/2026/11/20/{00,01}` -- 4 v")


def test_substitute_is_one_pass_and_leaves_other_dollars() -> None:
    variables = {"a": "${b}", "b": "never"}
    assert substitute("${a} $a ${ a } ${hiveconf:x} $${a}", variables, "w.sql") == "${b} $a ${ a } ${hiveconf:x} $${b}"


def test_an_unknown_variable_names_itself_and_the_known_ones() -> None:
    with pytest.raises(WorkflowError) as raised:
        substitute("SELECT * FROM json.`${hourly}` WHERE d = '${dayy}'", VARIABLES, "workflows/w.sql")
    assert str(raised.value) == ("The workflow workflows/w.sql uses ${dayy}, which is no input, output or property "
                                 "of the process: known are daily, hourly, my-var, spark.sql.x.")
    assert raised.value.exit_code == 1
