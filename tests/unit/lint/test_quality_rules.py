"""The data-quality rules (FD032, FD033 on a feed's gate; PR024, PR025 on a process output's): exact messages and
lines, what is left unchecked, and each suite read once per lint run. The suite files' own checks are
tests/unit/entities/test_quality_suites.py's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.unit.lint.overlay import TEMPLATE
from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.runner import lint_paths
from toolkit.core.entities.problems import Problem, Severity
from toolkit.core.entities.quality_suites import QualitySuite, SuiteError
from toolkit.core.entities.repo import ConfigRepo

CODES = ("FD032", "FD033", "PR024", "PR025")
COLUMNS = "columns:\n  - {name: ts, type: timestamp}\n  - {name: user, type: string}\n  - {name: page, type: string}\n"
FILES = "locations:\n  data: /data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}\n"
TABLE = "table:\n  uri: catalog:shop:{name}#ds=${{YEAR}}-${{MONTH}}-${{DAY}};hr=${{HOUR}}\n"


def feed(extra: str = "", storage: str = FILES, name: str = "orders") -> str:
    """An hourly feed on primary that nothing reads, with `extra` top-level fields."""
    return (f"kind: feed\nname: {name}\nfrequency: hours(1)\n{extra}lint:\n  ignore: [RP007]\nclusters:\n"
            "  - name: primary\n    type: source\n    validity:\n      start: 2026-01-01T00:00Z\n"
            f"      end: 2099-12-31T00:00Z\n{storage.format(name=name)}")


def process(*outputs: str) -> str:
    """An hourly process on primary writing `outputs` (YAML list items, each indented by two spaces)."""
    return ("kind: process\nname: load-orders\nclusters:\n  - name: primary\n    validity:\n"
            "      start: 2026-01-01T00:00Z\n      end: 2099-12-31T00:00Z\nfrequency: hours(1)\noutputs:\n"
            + "".join(outputs) + "workflow:\n  engine: pyspark\n  path: workflows/hourly_clicks_summary.py\n")


def output(name: str, feed_name: str, quality: str | None) -> str:
    gate = f"    quality: {{suite: {quality}}}\n" if quality is not None else ""
    return f"  - name: {name}\n    feed: {feed_name}\n    instance: now(0,0)\n{gate}"


def suite(*expectations: tuple[str, dict[str, Any]], name: str = "orders") -> str:
    return json.dumps({"name": name, "expectations": [{"type": t, "kwargs": k} for t, k in expectations]})


NOT_NULL = "expect_column_values_to_not_be_null"


def repo(tmp_path: Path, files: dict[str, str]) -> Path:
    """The template repo with `files` (path relative to the root -> text) added or replaced."""
    root = tmp_path / "repo"
    shutil.copytree(TEMPLATE, root)
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


def found(root: Path) -> list[Problem]:
    """The quality rules' problems; the files must load (a schema problem would hide them)."""
    problems = lint_paths([root]).problems
    assert [str(p) for p in problems if p.code.startswith(("YM", "SC", "RP"))] == []
    return [p for p in problems if p.code in CODES]


def line_of(root: Path, relative: str, needle: str) -> int:
    hits = [n for n, line in enumerate((root / relative).read_text().splitlines(), 1) if needle in line]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


# ------------------------------------------------------------------------------- FD032: the feed's suite


@pytest.mark.parametrize(("content", "sentence"), [
    (None, "does not exist in the config repo {root}: add the Great Expectations suite file there, or correct the "
           "path."),
    ("{", "is not JSON (line 1, column 2: Expecting property name enclosed in double quotes): write it as Great "
          "Expectations' suite JSON."),
    ('{"name": "orders", "expectations": []}', "lists no expectations: give \"expectations\" a list of {\"type\": "
     "..., \"kwargs\": {...}} (a gate without expectations would pass anything)."),
])
def test_fd032_a_missing_or_broken_suite_is_named_at_the_suite_field(tmp_path: Path, content: str | None,
                                                                     sentence: str) -> None:
    files = {"feeds/orders.yaml": feed("quality:\n  suite: quality/orders.json\n")}
    if content is not None:
        files["quality/orders.json"] = content
    root = repo(tmp_path, files)
    (problem,) = found(root)
    assert (problem.code, problem.line, problem.severity) == (
        "FD032", line_of(root, "feeds/orders.yaml", "suite:"), Severity.ERROR)
    assert problem.message == ("Feed 'orders': quality.suite: The quality suite quality/orders.json "
                               + sentence.replace("{root}", str(root)))


def test_fd032_a_suite_outside_the_repo(tmp_path: Path) -> None:
    (tmp_path / "orders.json").write_text(suite((NOT_NULL, {"column": "user"})))
    root = repo(tmp_path, {"feeds/orders.yaml": feed("quality:\n  suite: ../orders.json\n")})
    (problem,) = found(root)
    assert problem.code == "FD032"
    assert problem.message == (f"Feed 'orders': quality.suite: The quality suite ../orders.json is outside the config "
                               f"repo {root.resolve()}: keep suites in the repo (for example quality/<feed>.json), so "
                               "that they are versioned with the feed.")


def test_fd032_a_valid_suite_and_a_feed_without_a_gate_pass(tmp_path: Path) -> None:
    root = repo(tmp_path, {
        "feeds/orders.yaml": feed("quality:\n  suite: quality/orders.json\n  on-failure: warn\n"),
        "feeds/returns.yaml": feed(name="returns"),
        "quality/orders.json": suite((NOT_NULL, {"column": "user"})),
    })
    assert found(root) == []


# ------------------------------------------------------------------------- FD033: the feed's columns


def test_fd033_names_the_expectation_the_column_and_the_declared_columns(tmp_path: Path) -> None:
    root = repo(tmp_path, {
        "feeds/orders.yaml": feed(COLUMNS + "quality:\n  suite: quality/orders.json\n"),
        "quality/orders.json": suite((NOT_NULL, {"column": "User"}),
                                     ("expect_column_values_to_be_in_set", {"column": "country", "value_set": ["fr"]}),
                                     ("expect_compound_columns_to_be_unique", {"column_list": ["ts", "usr", "pg"]})),
    })
    problems = found(root)
    line = line_of(root, "feeds/orders.yaml", "suite:")
    assert [(p.code, p.line, p.severity) for p in problems] == [("FD033", line, Severity.ERROR)] * 3
    tail = "which feed 'orders' does not declare (its columns: ts, user, page): correct the column in the suite, " \
           "or declare it in the feed's columns."
    assert sorted(p.message for p in problems) == sorted([
        f"Feed 'orders': quality.suite quality/orders.json: expectation 2 (expect_column_values_to_be_in_set) names "
        f"the column 'country', {tail}",
        f"Feed 'orders': quality.suite quality/orders.json: expectation 3 (expect_compound_columns_to_be_unique) "
        f"names the column 'usr', {tail}",
        f"Feed 'orders': quality.suite quality/orders.json: expectation 3 (expect_compound_columns_to_be_unique) "
        f"names the column 'pg', {tail}",
    ])


def test_fd033_a_column_named_twice_by_one_expectation_is_reported_once(tmp_path: Path) -> None:
    """The two findings are equal, and the runner reports equal problems once."""
    root = repo(tmp_path, {
        "feeds/orders.yaml": feed(COLUMNS + "quality:\n  suite: quality/orders.json\n"),
        "quality/orders.json": suite(("expect_column_pair_values_to_be_equal", {"column_A": "ref", "column_B": "ref"})),
    })
    assert [p.message.split(", which")[0] for p in found(root)] == [
        "Feed 'orders': quality.suite quality/orders.json: expectation 1 (expect_column_pair_values_to_be_equal) "
        "names the column 'ref'"]


@pytest.mark.parametrize(("extra", "storage"), [
    ("quality:\n  suite: quality/orders.json\n", FILES),  # no columns declared
    (COLUMNS + "quality:\n  suite: quality/orders.json\n", TABLE),  # a table's columns are the table's
])
def test_fd033_leaves_feeds_whose_columns_it_does_not_know(tmp_path: Path, extra: str, storage: str) -> None:
    root = repo(tmp_path, {
        "feeds/orders.yaml": feed(extra, storage),
        "quality/orders.json": suite((NOT_NULL, {"column": "anything"})),
    })
    assert found(root) == []


def test_fd033_leaves_a_suite_that_does_not_parse_to_fd032(tmp_path: Path) -> None:
    root = repo(tmp_path, {
        "feeds/orders.yaml": feed(COLUMNS + "quality:\n  suite: quality/orders.json\n"),
        "quality/orders.json": '{"name": "orders", "expectations": [{"type": "nope", "kwargs": {"column": "x"}}]}',
    })
    assert [p.code for p in found(root)] == ["FD032"]


# ------------------------------------------------------------------------------ PR024, PR025: outputs


def test_pr024_names_the_output_field_of_each_broken_suite(tmp_path: Path) -> None:
    root = repo(tmp_path, {
        "feeds/orders.yaml": feed(),
        "feeds/returns.yaml": feed(name="returns"),
        "processes/load-orders.yaml": process(output("orders", "orders", "quality/orders.json"),
                                              output("returns", "returns", "quality/returns.json")),
        "quality/orders.json": suite((NOT_NULL, {"column": "user"})),
        "quality/returns.json": '["expect_column_values_to_not_be_null"]',
    })
    (problem,) = found(root)
    assert (problem.code, problem.line) == ("PR024", line_of(root, "processes/load-orders.yaml", "returns.json"))
    assert problem.message == (
        "Process 'load-orders': outputs[1].quality.suite: The quality suite quality/returns.json is not a JSON "
        "object: a suite is {\"name\": ..., \"expectations\": [{\"type\": ..., \"kwargs\": {...}}, ...]}.")


def test_pr025_checks_the_output_suite_against_the_output_feed(tmp_path: Path) -> None:
    root = repo(tmp_path, {
        "feeds/orders.yaml": feed(COLUMNS),
        "feeds/returns.yaml": feed(name="returns"),  # no columns: not checked
        "processes/load-orders.yaml": process(output("returns", "returns", "quality/orders.json"),
                                              output("orders", "orders", "quality/orders.json")),
        "quality/orders.json": suite((NOT_NULL, {"column": "user"}), (NOT_NULL, {"column": "amount"})),
    })
    (problem,) = found(root)
    assert (problem.code, problem.line, problem.severity) == (
        "PR025", line_of(root, "processes/load-orders.yaml", "- name: orders") + 3, Severity.ERROR)
    assert problem.message == (
        "Process 'load-orders': outputs[1].quality.suite quality/orders.json: expectation 2 "
        "(expect_column_values_to_not_be_null) names the column 'amount', which feed 'orders' does not declare (its "
        "columns: ts, user, page): correct the column in the suite, or declare it in the feed's columns.")


def test_the_feeds_gate_and_an_outputs_gate_are_each_reported_where_they_are_declared(tmp_path: Path) -> None:
    root = repo(tmp_path, {
        "feeds/orders.yaml": feed(COLUMNS + "quality:\n  suite: quality/orders.json\n"),
        "processes/load-orders.yaml": process(output("orders", "orders", "quality/orders.json")),
        "quality/orders.json": suite((NOT_NULL, {"column": "amount"})),
    })
    assert sorted((p.code, p.file.name) for p in found(root)) == [
        ("FD033", "orders.yaml"), ("PR025", "load-orders.yaml")]


def test_an_output_of_an_unknown_feed_is_left_to_rp004(tmp_path: Path) -> None:
    root = repo(tmp_path, {
        "processes/load-orders.yaml": process(output("orders", "orders", "quality/orders.json")),
        "quality/orders.json": suite((NOT_NULL, {"column": "amount"})),
    })
    problems = lint_paths([root]).problems
    assert [p.code for p in problems if p.code in (*CODES, "RP004")] == ["RP004"]


# --------------------------------------------------------------------------------------- once per run


def test_a_suite_is_read_once_per_lint_run(tmp_path: Path) -> None:
    root = repo(tmp_path, {"quality/orders.json": suite((NOT_NULL, {"column": "user"}))})
    repo_, _ = ConfigRepo.scan(root)
    ctx = LintContext(repo_)
    first = ctx.suite("quality/orders.json")
    assert isinstance(first, QualitySuite) and first.name == "orders"
    (root / "quality" / "orders.json").unlink()  # a second read would now fail
    assert ctx.suite("quality/orders.json") is first
    missing = ctx.suite("quality/missing.json")
    assert isinstance(missing, SuiteError) and ctx.suite("quality/missing.json") is missing
    assert isinstance(LintContext(repo_).suite("quality/orders.json"), SuiteError)  # a new run reads again


def test_linting_only_the_feed_file_still_checks_its_suite(tmp_path: Path) -> None:
    """pre-commit passes the changed entity files: the suite is read from the repo they are in."""
    root = repo(tmp_path, {"feeds/orders.yaml": feed("quality:\n  suite: quality/orders.json\n")})
    assert [p.code for p in lint_paths([root / "feeds" / "orders.yaml"]).problems if p.code in CODES] == ["FD032"]
