"""A gate's results as records (toolkit/core/ledger/quality_results.py): their JSON round trip (the ledger keeps
it), the status line's `quality: 11/12 passed`, the sentence a failure is told in, and which results stop a
publication."""

from __future__ import annotations

import json

import pytest

from toolkit.core.entities.model import OnFailure
from toolkit.core.ledger.quality_results import ExpectationOutcome, GateResult, summary

NOT_NULL = ExpectationOutcome("expect_column_values_to_not_be_null", True, ("user",), None, 0, 1_000_000,
                              {"column": "user"})
NULL_URLS = ExpectationOutcome("expect_column_values_to_not_be_null", False, ("url",), None, 1000, 1_000_000,
                               {"column": "url", "mostly": 1.0})
ROWS = ExpectationOutcome("expect_table_row_count_to_be_between", False, (), 12, None, None,
                          {"min_value": 1000})
MISSING = ExpectationOutcome("expect_column_mean_to_be_between", False, ("ms",),
                             error='Error: The column "ms" in BatchData does not exist.')


def result(*outcomes: ExpectationOutcome, on_failure: OnFailure = OnFailure.BLOCK, feed: str = "clicks") -> GateResult:
    return GateResult(feed, "2026-03-01T05:00Z", "quality/clicks.json", "clicks", on_failure,
                      "/staging/clicks/2026/03/01/05", outcomes, 1.23456)


def test_the_json_form_round_trips_through_text() -> None:
    original = result(NOT_NULL, NULL_URLS, ROWS, MISSING, on_failure=OnFailure.WARN)
    data = json.loads(json.dumps([original.to_json()]))
    assert data[0] == {
        "feed": "clicks", "time": "2026-03-01T05:00Z", "suite": "quality/clicks.json", "suite_name": "clicks",
        "on_failure": "warn", "location": "/staging/clicks/2026/03/01/05", "success": False, "passed": 1,
        "evaluated": 4, "seconds": 1.235, "expectations": [outcome.to_json() for outcome in original.expectations]}
    assert data[0]["expectations"][1] == {
        "type": "expect_column_values_to_not_be_null", "success": False, "columns": ["url"], "observed_value": None,
        "unexpected_count": 1000, "element_count": 1_000_000, "kwargs": {"column": "url", "mostly": 1.0},
        "error": None}
    back = GateResult.from_json(data[0])
    assert back.expectations == original.expectations
    assert (back.feed, back.time, back.suite, back.suite_name, back.on_failure, back.location) == (
        "clicks", "2026-03-01T05:00Z", "quality/clicks.json", "clicks", OnFailure.WARN, "/staging/clicks/2026/03/01/05")
    assert back.seconds == 1.235  # rounded to the millisecond in the record


def test_a_record_without_the_optional_keys_reads_with_their_defaults() -> None:
    back = GateResult.from_json({"feed": "clicks", "time": "2026-03-01T05:00Z", "suite": "quality/clicks.json",
                                 "expectations": [{"type": "expect_table_row_count_to_equal", "success": True}]})
    assert (back.suite_name, back.on_failure, back.location, back.seconds) == ("", OnFailure.BLOCK, "", 0.0)
    assert back.expectations == (ExpectationOutcome("expect_table_row_count_to_equal", True),)


def test_summary_counts_every_expectation_of_every_gate() -> None:
    eleven = result(*([NOT_NULL] * 11))
    assert summary([eleven, result(NULL_URLS, feed="clicks-hourly-summary")]) == "11/12 passed"
    assert summary([eleven]) == "11/11 passed"
    assert summary([result(ROWS, MISSING)]) == "0/2 passed"
    assert summary([]) is None  # no gate ran: the status line says nothing of quality


def test_describe_failures_names_the_feed_instance_suite_and_each_failure() -> None:
    gate = result(NOT_NULL, NULL_URLS, ROWS, MISSING)
    assert gate.failures == (NULL_URLS, ROWS, MISSING)
    assert gate.describe_failures() == (
        "feed 'clicks' 2026-03-01T05:00Z failed 3 of 4 expectations of the quality suite quality/clicks.json: "
        "expect_column_values_to_not_be_null(url): 1000 of 1000000 unexpected; "
        "expect_table_row_count_to_be_between: observed 12; "
        'expect_column_mean_to_be_between(ms): Error: The column "ms" in BatchData does not exist.')


def test_describe_failures_shows_five_and_says_there_are_more() -> None:
    failures = [ExpectationOutcome("expect_column_values_to_not_be_null", False, (f"c{i}",), None, i, None)
                for i in range(1, 8)]
    text = result(*failures).describe_failures()
    assert text.startswith("feed 'clicks' 2026-03-01T05:00Z failed 7 of 7 expectations")
    assert text.endswith("expect_column_values_to_not_be_null(c5): 5 unexpected ...")
    assert "(c6)" not in text


@pytest.mark.parametrize(("outcomes", "on_failure", "success", "blocks"), [
    ((NOT_NULL,), OnFailure.BLOCK, True, False),
    ((NOT_NULL,), OnFailure.WARN, True, False),
    ((NOT_NULL, NULL_URLS), OnFailure.BLOCK, False, True),
    ((NOT_NULL, NULL_URLS), OnFailure.WARN, False, False),  # published anyway, recorded
    ((MISSING,), OnFailure.BLOCK, False, True),  # an expectation that could not be evaluated did not hold
])
def test_only_a_failing_block_gate_blocks(outcomes: tuple[ExpectationOutcome, ...], on_failure: OnFailure,
                                          success: bool, blocks: bool) -> None:
    gate = result(*outcomes, on_failure=on_failure)
    assert (gate.success, gate.blocks, gate.passed) == (success, blocks, 1 if outcomes[0] is NOT_NULL else 0)


def test_the_label_names_the_columns() -> None:
    assert NULL_URLS.label == "expect_column_values_to_not_be_null(url)"
    assert ROWS.label == "expect_table_row_count_to_be_between"
    pair = ExpectationOutcome("expect_column_pair_values_to_be_equal", True, ("a", "b"))
    assert pair.label == "expect_column_pair_values_to_be_equal(a, b)"
