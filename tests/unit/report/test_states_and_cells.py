"""A cell's state from what the ledger records, its details, and which details a long window keeps."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from tests.unit.report.report_history import ERROR, GATE, attempt
from toolkit.core.entities.provenance import Provenance
from toolkit.core.ledger.instance_states import InstanceState
from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.ledger.records import DatasetEvent, Written
from toolkit.views.report.cells import DETAILED, feed_cell, needs_attempts, plain_successes, process_cell, trimmed
from toolkit.views.report.model import Cell, Details
from toolkit.views.report.states import COLOURS, State, feed_state, process_state

T = datetime(2026, 11, 21, 11, tzinfo=timezone.utc)


@pytest.mark.parametrize(("status", "state"), [
    ("SUCCEEDED", State.SUCCEEDED), ("RUNNING", State.RUNNING), ("WAITING", State.WAITING),
    ("FAILED", State.FAILED), ("TIMEDOUT", State.TIMED_OUT), ("KILLED", State.KILLED), ("SKIPPED", State.SKIPPED),
    ("SUSPENDED", State.SUSPENDED)])
def test_each_status_toolkit_status_shows_has_its_state(status: str, state: State) -> None:
    assert process_state(status, "RUN", quality_blocked=False) is state


def test_a_late_rerun_and_a_quality_block_are_told_apart_by_the_newest_attempt() -> None:
    assert process_state("SUCCEEDED", "LATE_RERUN", quality_blocked=False) is State.LATE_RERUN
    assert process_state("FAILED", "RUN", quality_blocked=True) is State.QUALITY_BLOCKED
    # a late rerun that failed is a failure; a quality result does not make a success anything else
    assert process_state("FAILED", "LATE_RERUN", quality_blocked=False) is State.FAILED
    assert process_state("SUCCEEDED", "RUN", quality_blocked=True) is State.SUCCEEDED


def test_statuses_that_are_no_record_have_no_state() -> None:
    with pytest.raises(ValueError, match="BLOCKED"):
        process_state("BLOCKED", None, quality_blocked=False)
    with pytest.raises(ValueError, match="withdrawn"):
        feed_state("withdrawn", "x")


def test_feed_states_come_from_the_last_event_and_its_producer() -> None:
    assert feed_state(None, None) is State.WAITING
    assert feed_state("published", "hourly-clicks-summary") is State.PUBLISHED
    assert feed_state("replaced", "hourly-clicks-summary") is State.REPLACED
    assert feed_state("published", "replication:backup") is State.REPLICATED
    assert feed_state("replaced", "replication:backup,third") is State.REPLICATED
    assert feed_state("evicted", "retention") is State.EVICTED


def test_every_state_has_a_colour_of_its_own_kind() -> None:
    assert set(COLOURS) == set(State)
    assert all(colour.startswith("#") and len(colour) == 7 for colour in COLOURS.values())


def test_a_process_cell_lists_its_attempts_and_quality_results() -> None:
    tries = [attempt(12, 1, "RUN", "FAILED", error=ERROR, quality=Written.of(GateResult, [GATE]))]
    cell = process_cell(T, "FAILED", Details(run_id="run-12", attempts=1, error=ERROR), tries, "missed by 2h")
    assert (cell.state, cell.sla) == (State.QUALITY_BLOCKED, "missed by 2h")
    assert cell.details is not None and len(cell.details.tries) == 1
    only = cell.details.tries[0]
    assert (only.number, only.kind, only.status, only.error) == (1, "RUN", "FAILED", ERROR)
    assert only.quality == ("quality/clicks_summary.json: 1/2 passed (blocked publication): "
                            "expect_column_values_to_not_be_null(page): 3 of 10 unexpected",)
    assert cell.details.to_json()["tries"][0]["started"] == "2026-11-21T12:01:00Z"  # type: ignore[index]


def test_a_process_cell_without_attempts_read_keeps_the_rows_state() -> None:
    cell = process_cell(T, "SUCCEEDED", Details(attempts=1), [], None)
    assert (cell.state, cell.details) == (State.SUCCEEDED, Details(attempts=1))


def _event(kind: str, producer: str, run: str) -> DatasetEvent:
    return DatasetEvent(feed="clicks", cluster="primary", time="2026-11-21T11:00Z", run_id=run, producer=producer,
                        location="/data/clicks/11", published="2026-11-21T11:05:00Z", kind=kind,
                        definition=Provenance("v1:x", "a" * 40))


def test_a_feed_cell_is_its_last_event() -> None:
    cell = feed_cell(T, [_event("published", "external", "one"), _event("replaced", "summary", "two")], None)
    assert cell.state is State.REPLACED and cell.details is not None
    assert (cell.details.run_id, cell.details.producer, cell.details.events, cell.details.commit) == \
        ("two", "summary", 2, "a" * 40)
    assert feed_cell(T, [], "not arrived") == Cell(T, State.WAITING, "not arrived")


def test_older_plain_successes_lose_their_details_and_the_rest_keep_them() -> None:
    first, second = Details(run_id="r"), Details(run_id="s")
    states = [State.SUCCEEDED, State.FAILED, State.PUBLISHED, State.SUCCEEDED]
    details = {3: second, 0: first, 1: first, 2: first}
    kept = trimmed(states, details, detailed=1)
    assert kept == {1: first, 3: second} and list(kept) == [1, 3]  # in the grid's order
    assert trimmed(states, details) == details  # fewer than DETAILED: all kept
    assert list(trimmed(states, details)) == [0, 1, 2, 3]
    assert len(states) < DETAILED


def test_attempts_are_read_for_what_is_not_a_success_of_one_attempt() -> None:
    assert not needs_attempts(None, 0)
    assert not needs_attempts("SUCCEEDED", 1)
    assert needs_attempts("SUCCEEDED", 2)  # a late rerun has two
    assert needs_attempts("FAILED", 1)
    assert needs_attempts("WAITING", 0)


def test_plain_successes_are_the_older_successes_of_one_attempt_not_held() -> None:
    times = [T + timedelta(hours=n) for n in range(7)]
    states = {times[0]: InstanceState("SUCCEEDED", 1, "r0", "u"), times[1]: InstanceState("SUCCEEDED", 2, "r1", "u"),
              times[2]: InstanceState("FAILED", 1, "r2", "u"), times[3]: InstanceState("SUCCEEDED", 1, "r3", "u"),
              times[4]: InstanceState("RUNNING", 1, "r4", "u"), times[5]: InstanceState("SUCCEEDED", 1, "r5", "u"),
              times[6]: InstanceState("SUCCEEDED", 1, "r6", "u")}
    # times[3] is held; the newest two keep their details whatever they are; times[1] may be a late rerun
    assert plain_successes(times, states, {times[3]}, detailed=2) == {times[0]}
    assert plain_successes(times, {}, set(), detailed=2) == set()  # never run: waiting, not plain
    assert plain_successes(times, states, set(), detailed=0) == {times[0], times[3], times[5], times[6]}
    assert plain_successes(times[:2], states, set()) == set()  # fewer than DETAILED: all detailed
