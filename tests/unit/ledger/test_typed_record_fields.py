"""Stored fields that were plain dicts are typed (issue 70): an attempt's and a batch's `job` (`AttemptJob`) and
`counters`, a lease's `details` (`LeaseDetails`), an instance state's `definition` (`Provenance`). The JSON below is
literally what the toolkit wrote before they were typed (made by the record classes and encoders of commit 48daa93):
it reads as the typed values, and the typed values write it back byte for byte."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from datetime import datetime, timezone

import pytest

from toolkit.actions.process_runner.attempt_facts import AttemptFacts
from toolkit.actions.process_runner.followed_jobs import AttemptJobs, FollowedJob, job_to_follow
from toolkit.core.entities.provenance import Provenance
from toolkit.core.ledger.batch_records import BatchRecord
from toolkit.core.ledger.instance_states import InstanceState
from toolkit.core.ledger.locks import HELD, Lease, LeaseDetails
from toolkit.core.ledger.records import (
    AttemptJob,
    AttemptRecord,
    CorruptRecordError,
    _Nested,
    parse_record,
    shape_of,
    to_json,
)
from toolkit.statuses import Status

RUNNING_ATTEMPT = b"""{
  "attempt": 2,
  "cluster": "primary",
  "counters": {},
  "definition": null,
  "ended": null,
  "error": null,
  "format_version": 1,
  "inputs": [],
  "job": {
    "attempt": 1,
    "id": "0000001-oozie-W",
    "run_id": "run-1"
  },
  "kind": "RUN",
  "outputs": [],
  "process": "hourly",
  "quality": [],
  "run_id": "run-2",
  "started": "2026-11-21T10:05:00Z",
  "status": "RUNNING",
  "time": "2026-11-21T10:00Z"
}
"""

ENDED_ATTEMPT = b"""{
  "attempt": 2,
  "cluster": "primary",
  "counters": {
    "workflow_seconds": 11.947
  },
  "definition": null,
  "ended": "2026-11-21T10:06:00Z",
  "error": null,
  "format_version": 1,
  "inputs": [],
  "job": {
    "attempt": 1,
    "id": "0000001-oozie-W",
    "run_id": "run-1",
    "status": "SUCCEEDED"
  },
  "kind": "RUN",
  "outputs": [],
  "process": "hourly",
  "quality": [],
  "run_id": "run-2",
  "started": "2026-11-21T10:05:00Z",
  "status": "SUCCEEDED",
  "time": "2026-11-21T10:00Z"
}
"""

BATCH_ATTEMPT = b"""{
  "attempt": 1,
  "cluster": "primary",
  "counters": {
    "workflow_seconds": 3.5
  },
  "definition": null,
  "ended": "2026-11-21T10:02:00Z",
  "error": "boom",
  "events": [],
  "format_version": 1,
  "inputs": [],
  "job": {
    "attempt": 1,
    "id": "0000002-oozie-W",
    "run_id": "run-3",
    "status": "KILLED"
  },
  "outputs": [],
  "process": "stream",
  "quality": [],
  "run_id": "run-3",
  "seq": 7,
  "started": "2026-11-21T10:00:00Z",
  "status": "FAILED"
}
"""

FOLLOWED = AttemptJob("0000001-oozie-W", "run-1", 1)


def test_an_attempts_job_and_counters_read_typed_and_write_back_byte_for_byte() -> None:
    running = parse_record(AttemptRecord, RUNNING_ATTEMPT, "attempt-002.json")
    assert (running.job, running.counters) == (FOLLOWED, {})
    ended = parse_record(AttemptRecord, ENDED_ATTEMPT, "attempt-002.json")
    assert ended.job == AttemptJob("0000001-oozie-W", "run-1", 1, "SUCCEEDED")
    assert ended.counters == {"workflow_seconds": 11.947}
    assert (to_json(running), to_json(ended)) == (RUNNING_ATTEMPT, ENDED_ATTEMPT)
    batch = parse_record(BatchRecord, BATCH_ATTEMPT, "attempt-001.json")
    assert (batch.job, batch.counters) == (AttemptJob("0000002-oozie-W", "run-3", 1, "KILLED"),
                                           {"workflow_seconds": 3.5})
    assert to_json(batch) == BATCH_ATTEMPT


def test_the_runner_writes_the_job_and_counters_as_before() -> None:
    """What the runner's journal and facts give (`AttemptJobs`, `AttemptFacts`) is what was written before."""
    journal = AttemptJobs(FollowedJob("0000001-oozie-W", "run-1", 1), "run-1", 1, write=lambda job: None)
    assert journal.recorded() == FOLLOWED
    journal.ended("SUCCEEDED")
    facts = AttemptFacts(2, Status.SUCCEEDED, datetime(2026, 11, 21, 10, 5, tzinfo=timezone.utc),
                         workflow_seconds=11.9471)
    ended = parse_record(AttemptRecord, ENDED_ATTEMPT, "attempt-002.json")
    assert (journal.recorded(), facts.counters()) == (ended.job, ended.counters)
    assert AttemptJobs(None, "run-2", 2, write=lambda job: None).recorded() is None


def test_the_job_is_a_nested_record_and_a_damaged_one_reads_as_none_as_it_was_never_followed() -> None:
    assert shape_of(AttemptRecord)["job"] == _Nested(AttemptJob, single=True, optional=True)
    assert shape_of(AttemptRecord)["counters"] == shape_of(BatchRecord)["counters"] == "dict"
    for damaged in ({}, {"id": "0000001-oozie-W", "run_id": "run-1"}, {**asdict(FOLLOWED), "attempt": "1"}, [1]):
        document = {**json.loads(RUNNING_ATTEMPT), "job": damaged, "status": "FAILED"}
        record = parse_record(AttemptRecord, json.dumps(document).encode(), "attempt-002.json")
        assert record.job is None and job_to_follow([record]) is None


@pytest.mark.parametrize(("status", "job", "followed"), [
    ("FAILED", FOLLOWED, FollowedJob("0000001-oozie-W", "run-1", 1)),  # its run died with the job running
    ("KILLED", FOLLOWED, FollowedJob("0000001-oozie-W", "run-1", 1)),
    ("SUCCEEDED", FOLLOWED, None),
    ("FAILED", AttemptJob("0000001-oozie-W", "run-1", 1, "KILLED"), None),  # it saw the job end
    ("FAILED", None, None),
])
def test_the_job_of_an_attempt_that_did_not_see_it_end_is_followed(status: str, job: AttemptJob | None,
                                                                  followed: FollowedJob | None) -> None:
    first = parse_record(AttemptRecord, ENDED_ATTEMPT, "attempt-001.json")
    written = replace(parse_record(AttemptRecord, RUNNING_ATTEMPT, "attempt-002.json"), status=status, job=job)
    last = parse_record(AttemptRecord, to_json(written), "attempt-002.json")
    assert job_to_follow([last, first]) == followed


# Lease files as the toolkit wrote them, one per kind of holder (a batch consumer's claim, a batch's output
# instance, a batch's slot, a roll-up, a Hive import, a lock taken without details).
LEASES = {
    b'{"details": {}, ': LeaseDetails(),
    b'{"details": {"process": "stream", "seq": 3, "since": "2026-11-21T10:00:05Z"}, ':
        LeaseDetails(process="stream", seq=3, since="2026-11-21T10:00:05Z"),
    b'{"details": {"batch": 3, "time": "2026-11-21T10:00Z"}, ': LeaseDetails(time="2026-11-21T10:00Z", batch=3),
    b'{"details": {"batch": 3}, ': LeaseDetails(batch=3),
    b'{"details": {"action": "rollup"}, ': LeaseDetails(action="rollup"),
    b'{"details": {"partition": "ds=2026-11-21"}, ': LeaseDetails(partition="ds=2026-11-21"),
}
LEASE_TAIL = (b'"expires": 1795255260.5, "expires_at": "2026-11-21T10:01:00Z", "format_version": 1, '
              b'"holder": "edge-1:4242", "run_id": "run-1", "state": "HELD"}\n')


@pytest.mark.parametrize("head", list(LEASES))
def test_a_leases_details_read_typed_and_write_back_byte_for_byte(head: bytes) -> None:
    data = head + LEASE_TAIL
    lease = Lease.parse(data, "file:///l/lock.0")
    assert lease == Lease("run-1", "edge-1:4242", 1795255260.5, HELD, LEASES[head])
    assert lease.to_json() == data


def test_details_no_toolkit_writes_are_left_out_and_damaged_ones_read_as_empty() -> None:
    """What a lease is for is shown, never computed with: damaged details must not make the lease unreadable (every
    later caller would exit 1 on the lock until someone edited the file); the lease's own fields stay checked."""
    document = {**json.loads(b'{"details": {"time": "2026-11-21T10:00Z", "shift": "night"}, ' + LEASE_TAIL)}
    assert Lease.parse(json.dumps(document).encode(), "l").details == LeaseDetails(time="2026-11-21T10:00Z")
    for damaged in ({"time": 10}, {"seq": "3"}, ["time"], "x", None):
        lease = Lease.parse(json.dumps({**document, "details": damaged}).encode(), "l")
        assert (lease.details, lease.run_id) == (LeaseDetails(), document["run_id"])
    with pytest.raises(CorruptRecordError, match="not a lock lease: the field 'run_id'"):
        Lease.parse(json.dumps({**document, "run_id": 10}).encode(), "l")


# A roll-up's state line as the toolkit wrote it (rollup_records.py, the state of an instance record).
STATE_LINE = (b'{"attempts":1,"definition":{"commit":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","definition":"v1:33",'
              b'"dirty":false},"ended":"2026-11-21T10:06:00Z","run_id":"run-1","started":"2026-11-21T10:05:00Z",'
              b'"status":"SUCCEEDED","updated":"2026-11-21T10:06:00Z"}')


def test_a_states_definition_reads_as_the_provenance_its_record_holds() -> None:
    document = json.loads(STATE_LINE)
    state = InstanceState.from_document(document, "roll-up", "20261121T1000Z")
    assert state.definition == Provenance("v1:33", "a" * 40)
    assert state.definition.to_json() == document["definition"]  # type: ignore[union-attr]
    assert InstanceState.from_document({**document, "missing": []}, "roll-up", "k").definition == state.definition
    for unknown in ({"commit": None}, {"definition": "v1:33", "dirty": 0}, {"definition": ["v1"]}, {}):
        assert InstanceState.from_document({**document, "definition": unknown}, "roll-up", "k").definition is None
    assert InstanceState.from_document({**document, "definition": None}, "roll-up", "k").definition is None
