"""What a batch means for the workflow (core/ledger/batch_plan.py): each instance once at its newest event,
oldest instance first, evictions consumed but not listed; the output instance snapped onto its feed's grid;
when a new batch is due (condition and cut); and the entrypoint's one-sentence refusals of `--batch` calls,
before Spark starts."""

from __future__ import annotations

import shutil
import sys
import textwrap
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.unit.lint.overlay import TEMPLATE
from toolkit.actions.process_runner.process_entry import main as process_main
from toolkit.core.el.frequency import Frequency
from toolkit.core.el.grid import InstanceGrid
from toolkit.core.entities.loading import parse_entity
from toolkit.core.entities.model import Condition, Process
from toolkit.core.ledger.batch_plan import batch_inputs, due_feeds, newest_time, output_time, trigger_cut
from toolkit.core.ledger.journal import JournalEntry
from toolkit.core.ledger.records import DatasetEvent
from toolkit.errors import UsageError
from toolkit.services.runtime import action_session

CONSUMER = """\
kind: process
name: p
clusters:
  - name: primary
    validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
workflow: {engine: pyspark, path: workflows/p.py}
trigger: data
inputs:
  - {name: raw, feed: clicks}
  - {name: other, feed: visits}
outputs:
  - {name: daily, feed: clicks-daily}
"""


def consumer() -> Process:
    entity, problems = parse_entity(textwrap.dedent(CONSUMER), Path("processes/p.yaml"))
    assert problems == [] and isinstance(entity, Process)
    return entity


def event(feed: str, time: str, ms: int, kind: str = "published") -> DatasetEvent:
    return DatasetEvent(feed=feed, cluster="primary", time=time, run_id="r", producer="external",
                        location=f"/data/{feed}/{time}", published="2026-11-22T10:00:00Z", kind=kind,
                        event_id=f"20261122T1000{ms:05d}Z-r-0000000{ms % 10}")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=timezone.utc)


def test_each_instance_is_listed_once_at_its_newest_event_oldest_first_and_evictions_are_not() -> None:
    events = [event("clicks", "2026-11-21T10:00Z", 1), event("clicks", "2026-11-21T08:00Z", 2),
              event("clicks", "2026-11-21T10:00Z", 3, "replaced"), event("clicks", "2026-11-21T09:00Z", 4),
              event("clicks", "2026-11-21T09:00Z", 5, "evicted"), event("visits", "2026-11-20T00:00Z", 6)]
    raw, other = batch_inputs(consumer(), list(reversed(events)))
    assert (raw.name, raw.feed, other.name) == ("raw", "clicks", "other")
    assert [(e.time, e.event_id) for e in raw.events] == [("2026-11-21T08:00Z", events[1].event_id),
                                                          ("2026-11-21T10:00Z", events[2].event_id)]
    assert other.times == (utc(2026, 11, 20),)
    assert newest_time([raw, other]) == utc(2026, 11, 21, 10)


def test_a_batch_of_evictions_lists_nothing() -> None:
    inputs = batch_inputs(consumer(), [event("clicks", "2026-11-21T08:00Z", 1, "evicted")])
    assert [item.events for item in inputs] == [(), ()] and newest_time(inputs) is None


def test_the_output_instance_is_the_newest_input_instance_snapped_down_onto_the_output_grid() -> None:
    daily = InstanceGrid(utc(2026, 1, 1), Frequency.parse("days(1)"))
    assert output_time(consumer(), "daily", "clicks-daily", daily, utc(2026, 11, 21, 23, 59)) == utc(2026, 11, 21)
    assert output_time(consumer(), "daily", "clicks-daily", daily, utc(2026, 11, 21)) == utc(2026, 11, 21)
    with pytest.raises(UsageError, match=r"^The output 'daily' of process 'p' has no instance of feed 'clicks-daily' "
                                         r"at or before 2025-12-31T23:00Z, the newest instance of the batch"):
        output_time(consumer(), "daily", "clicks-daily", daily, utc(2025, 12, 31, 23))


@pytest.mark.parametrize(("process", "extra", "message"), [
    ("p", ["--time", "2026-11-21T10:00Z"], "Process 'p' has no frequency: it is a batch consumer: run a batch with "
                                           "--batch (without --time), or let `toolkit trigger` start it."),
    ("p", ["--batch", "--time", "2026-11-21T10:00Z", "--force"],
     "--batch runs the next batch of the process 'p': --time, --force cannot be given with it."),
    ("hourly-clicks-summary", ["--batch"], "The process 'hourly-clicks-summary' has a frequency: it runs instances "
                                           "(give --time), not batches; --batch is for processes without frequency"),
])
def test_batch_calls_the_entrypoint_refuses_before_spark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str], process: str,
                                                         extra: list[str], message: str) -> None:
    root = tmp_path / "repo"
    shutil.copytree(TEMPLATE, root)
    (root / "processes" / "p.yaml").write_text(CONSUMER)
    started: list[object] = []
    monkeypatch.setattr(action_session, "build_session", lambda *args, **kwargs: started.append(args))
    monkeypatch.setattr(sys, "argv", ["entry", "--repo", str(root), "--process", process, "--cluster", "primary",
                                      *extra])
    assert process_main() == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and message in error
    assert started == []  # refused before any Spark session


def entry(feed: str, time: datetime, kind: str = "published") -> JournalEntry:
    return JournalEntry("20261122T100000000Z-r-00000000", feed, time, kind)


def test_a_new_batch_is_due_by_the_condition_over_pending_data_up_to_the_cut() -> None:
    every = consumer()
    one = replace(every, trigger=replace(every.trigger, condition=Condition.ANY))
    clicks, visits = entry("clicks", utc(2026, 11, 21, 10)), entry("visits", utc(2026, 11, 20))
    assert due_feeds(every, [clicks], None) == ["visits"]
    assert due_feeds(every, [clicks, visits], None) == []
    assert due_feeds(every, [clicks, visits], utc(2026, 11, 21)) == ["clicks"]  # 10:00 is after the cut
    assert due_feeds(one, [clicks], None) == []
    assert due_feeds(one, [entry("clicks", utc(2026, 11, 21), "evicted")], None) == ["clicks", "visits"]


def test_the_cut_is_an_instant_at_now_in_the_process_zone() -> None:
    entity = consumer()
    assert trigger_cut(entity, utc(2026, 11, 22, 12), ZoneInfo("UTC")) is None
    cut = replace(entity, trigger=replace(entity.trigger, cut="today(0,0)"))
    assert trigger_cut(cut, utc(2026, 11, 22, 3), ZoneInfo("America/New_York")) == utc(2026, 11, 21, 5)
