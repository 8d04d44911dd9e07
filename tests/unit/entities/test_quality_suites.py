"""A data-quality gate as the entities see it: the `quality` field of feeds and process outputs (schema, model,
`quality_gates`), and its Great Expectations suite file read without Great Expectations (quality_suites.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from entity_samples import FEED, PROCESS

from toolkit.core.entities.loading import parse_entity
from toolkit.core.entities.model import Feed, OnFailure, Process, Quality, quality_gates
from toolkit.core.entities.nesting import MAX_DEPTH, nesting
from toolkit.core.entities.quality_suites import ExpectationSpec, SuiteError, parse_suite, read_suite, suite_file
from toolkit.errors import UsageError

NOT_NULL = {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "user"}}


def write(root: Path, document: Any, path: str = "quality/clicks.json") -> str:
    """`document` as JSON (or as it is when text) at `path` under `root`; returns `path`."""
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(document if isinstance(document, str) else json.dumps(document), encoding="utf-8")
    return path


def refused(root: Path, path: str) -> str:
    with pytest.raises(SuiteError) as caught:
        read_suite(root, path)
    return str(caught.value)


# ------------------------------------------------------------------------------------------ suite files


def test_a_suite_in_great_expectations_json_is_read_with_its_expectations(tmp_path: Path) -> None:
    between = {"type": "expect_column_values_to_be_between", "kwargs": {"column": "ms", "min_value": 0},
               "meta": {"notes": "render time"}, "id": "4f1c"}
    rows = {"type": "expect_table_row_count_to_be_between", "kwargs": {"min_value": 1}}
    path = write(tmp_path, {"name": "clicks", "expectations": [NOT_NULL, between, rows], "meta": {}, "notes": None})
    suite = read_suite(tmp_path, path)
    assert (suite.path, suite.name) == ("quality/clicks.json", "clicks")
    assert [(e.type, dict(e.kwargs)) for e in suite.expectations] == [
        ("expect_column_values_to_not_be_null", {"column": "user"}),
        ("expect_column_values_to_be_between", {"column": "ms", "min_value": 0}),
        ("expect_table_row_count_to_be_between", {"min_value": 1}),
    ]
    assert [e.label for e in suite.expectations] == [
        "expect_column_values_to_not_be_null(user)", "expect_column_values_to_be_between(ms)",
        "expect_table_row_count_to_be_between"]


def test_the_0x_keys_are_read_too(tmp_path: Path) -> None:
    path = write(tmp_path, {"expectation_suite_name": "clicks.warning", "expectations": [
        {"expectation_type": "expect_column_to_exist", "kwargs": {"column": "page"}, "meta": {}}]})
    suite = read_suite(tmp_path, path)
    assert suite.name == "clicks.warning"
    assert suite.expectations == (ExpectationSpec("expect_column_to_exist", {"column": "page"}),)


def test_an_expectation_without_kwargs_has_none(tmp_path: Path) -> None:
    path = write(tmp_path, {"name": "clicks", "expectations": [{"type": "expect_table_row_count_to_equal"}]})
    (expectation,) = read_suite(tmp_path, path).expectations
    assert dict(expectation.kwargs) == {} and expectation.columns == ()


def test_a_missing_suite_names_the_file_and_the_repo(tmp_path: Path) -> None:
    message = refused(tmp_path, "quality/nope.json")
    assert message == (f"The quality suite quality/nope.json does not exist in the config repo {tmp_path}: add the "
                       "Great Expectations suite file there, or correct the path.")


def test_a_suite_error_is_a_usage_error_exit_2(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        read_suite(tmp_path, "quality/nope.json")
    assert caught.value.exit_code == 2


@pytest.mark.parametrize(("content", "message"), [
    ('{"name": "clicks",\n  "expectations": [}', "is not JSON (line 2, column 20: Expecting value): write it as "
                                                 "Great Expectations' suite JSON."),
    ("name: clicks\n", "is not JSON (line 1, column 1: Expecting value): write it as Great Expectations' suite JSON."),
    ([NOT_NULL], 'is not a JSON object: a suite is {"name": ..., "expectations": [{"type": ..., "kwargs": {...}}, '
                 '...]}.'),
    ({"expectations": [NOT_NULL]}, 'has no name: give it a "name".'),
    ({"name": "", "expectations": [NOT_NULL]}, 'has no name: give it a "name".'),
    ({"name": 7, "expectations": [NOT_NULL]}, 'has no name: give it a "name".'),
    ({"name": "clicks"}, 'lists no expectations: give "expectations" a list of {"type": ..., "kwargs": {...}} (a gate '
                         "without expectations would pass anything)."),
    ({"name": "clicks", "expectations": []}, "lists no expectations"),
    ({"name": "clicks", "expectations": {"type": "expect_column_to_exist"}}, "lists no expectations"),
])
def test_a_file_that_is_no_suite_says_what_is_wrong(tmp_path: Path, content: Any, message: str) -> None:
    assert refused(tmp_path, write(tmp_path, content)).startswith(f"The quality suite quality/clicks.json {message}")


def _suite_nesting(depth: int) -> str:
    """A suite whose deepest list is `depth` levels down (the suite's object is level 1, the kwargs level 4)."""
    return ('{"name": "clicks", "expectations": [{"type": "expect_column_values_to_be_in_set", "kwargs": '
            '{"column": "page", "value_set": ' + "[" * (depth - 4) + "]" * (depth - 4) + "}}]}")


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 500, 100_000])
def test_a_suite_nested_deeper_than_entities_may_is_refused_in_one_sentence(tmp_path: Path, depth: int) -> None:
    """Lint rules, the gate and Great Expectations walk a suite's kwargs: the YAML loader's limit holds for them."""
    assert refused(tmp_path, write(tmp_path, _suite_nesting(depth))) == (
        f"The quality suite quality/clicks.json nests more than {MAX_DEPTH} levels deep, far deeper than a suite: "
        "flatten it.")


def test_a_suite_nested_as_deep_as_entities_may_is_read(tmp_path: Path) -> None:
    suite = read_suite(tmp_path, write(tmp_path, _suite_nesting(MAX_DEPTH)))
    assert nesting(dict(suite.expectations[0].kwargs)) == MAX_DEPTH - 3


@pytest.mark.parametrize(("item", "message"), [
    ("expect_column_to_exist", 'is not a JSON object: write {"type": ..., "kwargs": {...}}.'),
    ({"kwargs": {"column": "user"}}, 'has no Great Expectations type (a "type" such as '
                                     "expect_column_values_to_not_be_null): give it one."),
    ({"type": "column_values_not_null", "kwargs": {}}, "has no Great Expectations type"),
    ({"type": "expect_column_to_exist", "kwargs": ["page"]},
     '(expect_column_to_exist) has "kwargs" that are not a JSON object: give its arguments as one.'),
])
def test_a_bad_expectation_is_named_by_its_position(tmp_path: Path, item: Any, message: str) -> None:
    path = write(tmp_path, {"name": "clicks", "expectations": [NOT_NULL, item]})
    assert refused(tmp_path, path).startswith(f"Expectation 2 of the quality suite quality/clicks.json {message}")


@pytest.mark.parametrize("path", ["../outside.json", "quality/../../outside.json", "/etc/outside.json"])
def test_a_path_that_climbs_out_of_the_repo_is_refused(tmp_path: Path, path: str) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    write(tmp_path, {"name": "outside", "expectations": [NOT_NULL]}, "outside.json")
    assert refused(root, path) == (f"The quality suite {path} is outside the config repo {root.resolve()}: keep "
                                   "suites in the repo (for example quality/<feed>.json), so that they are versioned "
                                   "with the feed.")


def test_a_link_out_of_the_repo_is_refused_and_one_inside_it_is_followed(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(tmp_path, {"name": "outside", "expectations": [NOT_NULL]}, "outside.json")
    write(root, {"name": "shared", "expectations": [NOT_NULL]}, "quality/shared.json")
    os.symlink(tmp_path / "outside.json", root / "quality" / "escape.json")
    os.symlink(root / "quality" / "shared.json", root / "quality" / "clicks.json")
    assert "is outside the config repo" in refused(root, "quality/escape.json")
    assert read_suite(root, "quality/clicks.json").name == "shared"
    assert suite_file(root, "quality/clicks.json") == (root / "quality" / "shared.json").resolve()


@pytest.mark.parametrize(("write_bad", "reason"), [
    (lambda target: target.mkdir(parents=True), "Is a directory"),
    (lambda target: (target.parent.mkdir(parents=True), target.write_bytes(b'{"name": "\xff"}')), "can't decode byte"),
])
def test_an_unreadable_suite_says_why(tmp_path: Path, write_bad: Any, reason: str) -> None:
    write_bad(tmp_path / "quality" / "clicks.json")
    message = refused(tmp_path, "quality/clicks.json")
    assert message.startswith("The quality suite quality/clicks.json cannot be read (")
    assert reason in message and message.endswith("): make it a readable UTF-8 JSON file.")


@pytest.mark.parametrize(("kwargs", "columns"), [
    ({"column": "user", "mostly": 0.9}, ("user",)),
    ({"column_A": "clicks_3h", "column_B": "clicks"}, ("clicks_3h", "clicks")),
    ({"column_list": ["ts", "user"]}, ("ts", "user")),
    ({"column_set": ["page", "ts"], "exact_match": True}, ("page", "ts")),
    ({"column": "a", "column_list": ["b"]}, ("a", "b")),
    ({"min_value": 1, "max_value": 10}, ()),
    ({"column": 3, "column_list": "user"}, ()),  # not a name, not a list: no column
])
def test_the_columns_an_expectation_names(kwargs: dict[str, Any], columns: tuple[str, ...]) -> None:
    expectation = ExpectationSpec("expect_something", kwargs)
    assert expectation.columns == columns
    assert expectation.label == (f"expect_something({', '.join(columns)})" if columns else "expect_something")


# ------------------------------------------------------------------------------ the entities' `quality`

PROCESS_TEXT = PROCESS.format(name="p", cluster="primary", input="a", output="b")


def feed_with(extra: str) -> tuple[Feed | None, list[str]]:
    entity, problems = parse_entity(FEED.format(name="clicks", cluster="primary") + extra, Path("feeds/clicks.yaml"))
    assert entity is None or isinstance(entity, Feed)
    return entity, [p.message for p in problems]


def process_with(gate: str) -> tuple[Process | None, list[str]]:
    text = PROCESS_TEXT.replace("    instance: now(0,0)\n", f"    instance: now(0,0)\n{gate}")
    entity, problems = parse_entity(text, Path("processes/p.yaml"))
    assert entity is None or isinstance(entity, Process)
    return entity, [p.message for p in problems]


def test_a_feeds_gate_blocks_by_default() -> None:
    entity, problems = feed_with("quality:\n  suite: quality/clicks.json\n")
    assert problems == [] and entity is not None
    assert entity.quality == Quality(suite="quality/clicks.json", on_failure=OnFailure.BLOCK)
    entity, _ = feed_with("")
    assert entity is not None and entity.quality is None


def test_an_outputs_gate_with_warn() -> None:
    entity, problems = process_with("    quality: {suite: quality/b.json, on-failure: warn}\n")
    assert problems == [] and entity is not None
    assert entity.outputs[0].quality == Quality(suite="quality/b.json", on_failure=OnFailure.WARN)


@pytest.mark.parametrize(("extra", "message"), [
    ("quality:\n  suite: quality/clicks.json\n  on-failure: stop\n",
     "Feed 'clicks': quality.on-failure is 'stop'; allowed values are block, warn."),
    ("quality:\n  suite: quality/clicks.yaml\n",
     "Feed 'clicks': quality.suite is 'quality/clicks.yaml', which is not valid: give the path of a Great "
     "Expectations suite's JSON file in the config repo, e.g. quality/clicks.json."),
    ("quality:\n  suite: ''\n", "Feed 'clicks': quality.suite is '', which is not valid: give the path of a Great "
     "Expectations suite's JSON file in the config repo, e.g. quality/clicks.json."),
    ("quality:\n  on-failure: warn\n", "Feed 'clicks': the required field quality.suite is missing; add it."),
    ("quality:\n  suite: quality/clicks.json\n  onFailure: warn\n",
     "Feed 'clicks': unknown key 'onFailure' in quality (did you mean 'on-failure'?); the allowed keys are suite, "
     "on-failure."),
    ("quality: quality/clicks.json\n", "Feed 'clicks': quality must be a mapping, not the text 'quality/clicks.json'."),
])
def test_a_feeds_gate_is_validated_by_the_schema(extra: str, message: str) -> None:
    entity, problems = feed_with(extra)
    assert entity is None and problems == [message]


@pytest.mark.parametrize(("gate", "message"), [
    ("    quality: {suite: quality/b.json, on-failure: never}\n",
     "Process 'p': outputs[0].quality.on-failure is 'never'; allowed values are block, warn."),
    ("    quality: {suite: quality/b.txt}\n",
     "Process 'p': outputs[0].quality.suite is 'quality/b.txt', which is not valid: give the path of a Great "
     "Expectations suite's JSON file in the config repo, e.g. quality/clicks.json."),
    ("    quality: {suite: quality/b.json, expectations: []}\n",
     "Process 'p': unknown key 'expectations' in outputs[0].quality; the allowed keys are suite, on-failure."),
])
def test_an_outputs_gate_is_validated_by_the_schema(gate: str, message: str) -> None:
    entity, problems = process_with(gate)
    assert entity is None and problems == [message]


def test_a_process_has_gates_on_its_outputs_only() -> None:
    entity, problems = parse_entity(PROCESS_TEXT + "quality: {suite: quality/b.json}\n", Path("processes/p.yaml"))
    assert entity is None and len(problems) == 1
    assert problems[0].message.startswith("Process 'p': unknown key 'quality' at the top level;")


# ------------------------------------------------------------------------------------------ quality_gates


def gates(feed_gate: str, output_gate: str) -> tuple[Quality, ...]:
    feed, _ = feed_with(feed_gate)
    process, _ = process_with(output_gate)
    assert feed is not None and process is not None
    return quality_gates(feed, process.outputs[0])


FEED_GATE = "quality:\n  suite: quality/clicks.json\n"


def test_quality_gates_of_a_feed_and_an_output() -> None:
    feeds = Quality(suite="quality/clicks.json", on_failure=OnFailure.BLOCK)
    own = Quality(suite="quality/b.json", on_failure=OnFailure.WARN)
    warn_gate = "    quality: {suite: quality/b.json, on-failure: warn}\n"
    assert gates("", "") == ()
    assert gates(FEED_GATE, "") == (feeds,)
    assert gates("", warn_gate) == (own,)
    assert gates(FEED_GATE, warn_gate) == (feeds, own)  # the feed's first
    feed, _ = feed_with(FEED_GATE)
    assert feed is not None and quality_gates(feed) == (feeds,)  # replication and ingest: the feed's only


def test_a_suite_named_by_the_feed_and_the_output_is_checked_once_and_an_output_cannot_weaken_it() -> None:
    assert gates(FEED_GATE, "    quality: {suite: quality/clicks.json, on-failure: warn}\n") == (
        Quality(suite="quality/clicks.json", on_failure=OnFailure.BLOCK),)  # the feed's block holds
    warned = "quality:\n  suite: quality/clicks.json\n  on-failure: warn\n"
    assert gates(warned, "    quality: {suite: quality/clicks.json}\n") == (
        Quality(suite="quality/clicks.json", on_failure=OnFailure.BLOCK),)  # the output may be stricter
    assert gates(warned, "    quality: {suite: quality/clicks.json, on-failure: warn}\n") == (
        Quality(suite="quality/clicks.json", on_failure=OnFailure.WARN),)


def test_a_repeated_expectation_is_refused_naming_both() -> None:
    repeated = {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "page"}}
    with pytest.raises(SuiteError) as raised:
        parse_suite("quality/x.json", {"name": "x", "expectations": [
            repeated, {"type": "expect_table_row_count_to_be_between", "kwargs": {"min_value": 1}}, dict(repeated)]})
    assert str(raised.value) == ("Expectations 1 and 3 of the quality suite quality/x.json are the same "
                                 "(expect_column_values_to_not_be_null(page)): remove one of them.")


def test_a_suite_bigger_than_any_suite_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A suite is parsed whole: a file of 5 MiB (a suite of a thousand expectations is a few hundred kilobytes) is
    one sentence naming it, its size and the limit, never read into memory."""
    document = json.dumps({"name": "clicks", "expectations": [NOT_NULL]})
    path = write(tmp_path, document + " " * ((5 << 20) - len(document)))
    assert refused(tmp_path, path) == ("The quality suite quality/clicks.json is 5,242,880 bytes, more than the "
                                       "4,194,304 a suite may be: check that the path names a Great Expectations "
                                       "suite.")
    assert read_suite(tmp_path, write(tmp_path, document + " " * ((4 << 20) - len(document)))).name == "clicks"
