"""A batch consumer's queue (toolkit/core/ledger/consumption.py, `toolkit queue`) attacked on real files with real
processes: a consumer killed with SIGKILL at each write of a plan, the cursor and a commit, then the runs after
it; two consumers and a producer at once; a run holding a plan while another asks; and hostile layouts (a folder
where a plan, a commit or the cursor belongs, a link in place of the cursor, a root spelled otherwise)."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.unit.ledger.ledger_support import SetClock, cluster_yaml, load_clusters
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.consumption import ConsumerQueue
from toolkit.core.ledger.records import PublicationFacts
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem

UTC = timezone.utc
BASE = datetime(2026, 11, 21, tzinfo=UTC)
LEASE = 30.0
TIMEOUT = 120
CONSUMER = """kind: process
name: loader
clusters:
  - name: primary
    validity: {start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}
trigger: {on: data, condition: any}
inputs:
  - {name: clicks, feed: clicks}
workflow: {engine: pyspark, path: workflows/noop.py}
"""
FEED = """kind: feed
name: clicks
frequency: hours(1)
clusters:
  - name: primary
    type: source
    validity: {start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}
locations:
  data: /data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}
"""


def open_ledger(tmp: Path, endpoint: str | None = None, clock: Callable[[], float] | None = None) -> Ledger:
    """The ledger of the cluster rooted in `tmp/root` (each caller, a child process too, loads its own config)."""
    folder = tmp / f"conf-{os.getpid()}-{time.monotonic_ns()}"
    repo = load_clusters(folder, {"primary": cluster_yaml("primary", endpoint or f"file://{tmp / 'root'}",
                                                          {"working": "/feed-toolkit/working"})})
    return Ledger.of(LocalFileSystem(), repo.cluster("primary"), lease_seconds=LEASE, clock=clock)


def queue_of(ledger: Ledger) -> ConsumerQueue:
    return ConsumerQueue(ledger, "loader", ["clicks"])


def publish(ledger: Ledger, k: int, run_id: str = "producer") -> str:
    event = ledger.record_publication(PublicationFacts("clicks", "primary", BASE + timedelta(hours=k),
                                                       producer="external", run_id=run_id, location=f"file:///d/{k}",
                                                       fingerprint=Fingerprint(f"{run_id}-{k}", 1, 1)))
    assert event is not None
    return event.event_id


def consumer_folder(tmp: Path) -> Path:
    return tmp / "root" / "feed-toolkit" / "working" / "ledger" / "consumers" / "loader"


def drain(queue: ConsumerQueue, run_id: str, consumed: Path | None = None) -> None:
    """What the runs after a kill do: replay the open plans, plan and consume the rest; each event consumed is
    marked by a file created exclusively (a second consumption of one event would fail)."""
    while True:
        claim = queue.claim(run_id)
        if claim is None and queue.create_plan(run_id, max_batch=2) is None:
            claim = queue.claim(run_id)  # a plan another run gave back meanwhile
            if claim is None:
                return
        if claim is None:
            continue
        if consumed is not None:
            for event_id in claim.plan.event_ids:
                (consumed / event_id).open("x").close()
        queue.commit(claim)


def assert_exactly_once(queue: ConsumerQueue, events: list[str]) -> None:
    """Every event in exactly one plan, every plan committed once, every record whole, nothing pending."""
    plans = queue.plans()
    assert sorted(i for plan in plans for i in plan.event_ids) == sorted(events)
    assert [plan.seq for plan in plans] == list(range(1, len(plans) + 1))
    assert [b.state for b in queue.batches()] == ["consumed"] * len(plans)
    assert queue.pending() == [] and queue.open_plans() == []
    folder = Path(queue.folder.removeprefix("file://"))
    for record in [*folder.glob("plans/*.json"), *folder.glob("commits/*.json"), folder / "cursor.json"]:
        json.loads(record.read_text())  # none half-written
    assert sorted(p.name for p in folder.glob("commits/*.json")) == sorted(p.name for p in folder.glob("plans/*.json"))


# -- kill -9 at each write ---------------------------------------------------------------------------------------

KILL_POINTS = {
    "plan-staged": ("rename", "/plans/", "before"),  # its complete temporary file written, not renamed onto its name
    "plan-created": ("rename", "/plans/", "after"),  # the plan created, the cursor not moved past it
    "cursor": ("write_atomically", "/cursor.json", "before"),
    "commit-staged": ("rename", "/commits/", "before"),
    "commit-created": ("rename", "/commits/", "after"),  # committed, its lease not released
}


def _consume_and_die(tmp: str, point: str) -> None:
    """A consumer that plans, claims and commits, killed with SIGKILL at `point`."""
    method, marker, when = KILL_POINTS[point]
    real = getattr(LocalFileSystem, method)

    def wrapped(self: LocalFileSystem, first: str, second: object) -> object:
        target = second if method == "rename" else first
        hit = marker in str(target) and not str(target).rsplit("/", 1)[1].startswith(".")
        if hit and when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        result = real(self, first, second)
        if hit:
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    setattr(LocalFileSystem, method, wrapped)
    queue = queue_of(open_ledger(Path(tmp)))
    outcome = queue.create_plan("killed", max_batch=2)
    assert outcome is not None
    claim = queue.claim("killed")
    assert claim is not None
    queue.commit(claim)
    os._exit(0)


@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_a_consumer_killed_at_any_write_leaves_every_event_in_exactly_one_committed_plan_after_the_next_runs(
        tmp_path: Path, point: str) -> None:
    ledger = open_ledger(tmp_path)
    events = [publish(ledger, k) for k in range(5)]
    child = multiprocessing.get_context("fork").Process(target=_consume_and_die, args=(str(tmp_path), point))
    child.start()
    child.join(TIMEOUT)
    assert child.exitcode == -signal.SIGKILL
    queue = queue_of(ledger)
    plans = queue.plans()
    assert [len(plan.events) for plan in plans] == ([] if point == "plan-staged" else [2])
    if point == "commit-created":  # committed by the killed run: never replayed, its lease no matter
        assert [(b.state, b.commit.run_id if b.commit else None) for b in queue.batches()] == [("consumed", "killed")]
    # while the killed run's lease lasts its plan is not replayed, and a new plan takes other events
    consumed = tmp_path / "consumed"
    consumed.mkdir()
    if point == "commit-staged":  # claimed, not committed
        assert queue.claim("too-early", seq=1) is None
        lease = queue.lease(1)
        assert lease is not None and lease.run_id == "killed" and lease.holder.endswith(f":{child.pid}")
    later = queue_of(open_ledger(tmp_path, clock=SetClock(time.time() + LEASE + 1)))  # its lease is over
    drain(later, "next", consumed)
    assert_exactly_once(later, events)
    replayed = sorted(p.name for p in consumed.iterdir())  # what the runs after the kill consumed
    first = sorted(plans[0].event_ids) if plans else []
    assert replayed == sorted(events if point != "commit-created" else set(events) - set(first))
    committed_by = [b.commit.run_id for b in later.batches() if b.commit]
    assert committed_by == (["killed"] if point == "commit-created" else []) + ["next"] * (len(committed_by) - (
        1 if point == "commit-created" else 0))


# -- two consumers and a producer at once ----------------------------------------------------------------------

def _producer(tmp: str, start, count: int) -> None:  # noqa: ANN001
    ledger = open_ledger(Path(tmp))
    start.wait(TIMEOUT)
    for k in range(count):
        publish(ledger, k, run_id=f"p{os.getpid()}")
    os._exit(0)


def _consumer(tmp: str, start, done, name: str) -> None:  # noqa: ANN001
    queue = queue_of(open_ledger(Path(tmp)))
    consumed = Path(tmp) / "consumed"
    start.wait(TIMEOUT)
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        finished = done.is_set()
        drain(queue, name, consumed)
        if finished:
            break
    os._exit(0)


def test_two_consumers_and_a_producer_at_once_consume_every_event_exactly_once(tmp_path: Path) -> None:
    (tmp_path / "consumed").mkdir()
    context = multiprocessing.get_context("fork")
    start, done = context.Event(), context.Event()
    producer = context.Process(target=_producer, args=(str(tmp_path), start, 24))
    consumers = [context.Process(target=_consumer, args=(str(tmp_path), start, done, f"c{n}")) for n in range(2)]
    for child in (producer, *consumers):
        child.start()
    start.set()
    producer.join(TIMEOUT)
    done.set()
    for child in consumers:
        child.join(TIMEOUT)
    assert [child.exitcode for child in (producer, *consumers)] == [0, 0, 0]
    queue = queue_of(open_ledger(tmp_path))
    events = [e.event_id for e in queue.ledger.journal.entries_since(None, timedelta(0))]
    assert len(events) == 24
    assert_exactly_once(queue, events)
    assert sorted(p.name for p in (tmp_path / "consumed").iterdir()) == sorted(events)  # each consumed once
    assert {b.commit.run_id for b in queue.batches() if b.commit} <= {"c0", "c1"}


def _claim_and_hold(tmp: str, ready, go) -> None:  # noqa: ANN001
    queue = queue_of(open_ledger(Path(tmp)))
    claim = queue.claim("holder")
    assert claim is not None
    ready.set()
    assert go.wait(TIMEOUT)
    queue.commit(claim)
    os._exit(0)


def toolkit_queue(repo: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolkit", "queue", "--repo", str(repo), "--cluster", "primary",
                           "--process", "loader", *options], capture_output=True, text=True, timeout=TIMEOUT)


def config_repo(tmp: Path, endpoint: str) -> Path:
    repo = tmp / f"repo-{time.monotonic_ns()}"
    load_clusters(repo, {"primary": cluster_yaml("primary", endpoint, {"working": "/feed-toolkit/working"})})
    for folder, name, text in (("feeds", "clicks", FEED), ("processes", "loader", CONSUMER)):
        (repo / folder).mkdir()
        (repo / folder / f"{name}.yaml").write_text(text)
    return repo


def test_a_plan_held_by_a_live_run_is_not_taken_and_the_queue_names_its_holder(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path)
    events = [publish(ledger, k) for k in range(3)]
    queue = queue_of(ledger)
    planned = queue.create_plan("sweep")
    assert planned is not None
    context = multiprocessing.get_context("fork")
    ready, go = context.Event(), context.Event()
    holder = context.Process(target=_claim_and_hold, args=(str(tmp_path), ready, go))
    holder.start()
    try:
        assert ready.wait(TIMEOUT)
        shown = toolkit_queue(config_repo(tmp_path, f"file://{tmp_path / 'root'}"), "--format", "json")
        assert queue.claim("second") is None and queue.create_plan("second") is None  # nothing else to plan
        ordered = queue.create_plan("second", ordered=True)
        assert ordered is not None and not ordered.created and ordered.plan == planned.plan
    finally:
        go.set()
        holder.join(TIMEOUT)
    assert holder.exitcode == 0 and shown.returncode == 0, shown.stderr
    [batch] = json.loads(shown.stdout)["batches"]
    assert (batch["state"], batch["run_id"], batch["holder"].rsplit(":", 1)[1]) == ("claimed", "holder",
                                                                                     str(holder.pid))
    assert [(b.state, b.commit.run_id if b.commit else None) for b in queue.batches()] == [("consumed", "holder")]
    assert_exactly_once(queue, events)


# -- hostile layouts -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("record", ["plans/0000000001.json", "commits/0000000001.json", "cursor.json"])
def test_a_folder_where_a_queue_record_belongs_is_refused_in_one_sentence_and_nothing_is_touched(
        tmp_path: Path, record: str) -> None:
    ledger = open_ledger(tmp_path)
    publish(ledger, 0)
    queue = queue_of(ledger)
    made = queue.create_plan("s")
    assert made is not None
    folder = consumer_folder(tmp_path)
    path = folder / record
    if path.exists():
        path.unlink()
    path.mkdir(parents=True)
    (path / "keep").write_text("mine")
    before = sorted((str(p), p.read_bytes() if p.is_file() else None) for p in tmp_path.joinpath("root").rglob("*"))
    result = toolkit_queue(config_repo(tmp_path, f"file://{tmp_path / 'root'}"))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [f"toolkit: Cannot read file://{path}: Is a directory."]
    after = sorted((str(p), p.read_bytes() if p.is_file() else None) for p in tmp_path.joinpath("root").rglob("*"))
    assert after == before


def test_a_link_where_the_cursor_belongs_is_replaced_never_written_through(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path)
    events = [publish(ledger, k) for k in range(2)]
    outside = tmp_path / "outside.json"
    outside.write_text('{"format_version": 1, "late_planned": [], "open_from": 1, "plans_from": 1, '
                       '"position": null}\n')
    folder = consumer_folder(tmp_path)
    folder.mkdir(parents=True)
    (folder / "cursor.json").symlink_to(outside)
    queue = queue_of(ledger)
    drain(queue, "run")
    assert outside.read_text().endswith('"position": null}\n')  # its target untouched
    assert not (folder / "cursor.json").is_symlink()
    assert_exactly_once(queue, events)


def test_a_root_spelled_otherwise_reads_and_writes_the_same_queue(tmp_path: Path) -> None:
    """`file:///x//y/`, `file:/x/y` and `file:///x/y/` are one root: a plan made through one spelling is found
    through the others, no event is planned twice, nothing is written beside the root."""
    root = tmp_path / "root"
    parts = str(root).strip("/").split("/")
    spellings = [f"file://{root}", "file:///" + parts[0] + "//" + "/".join(parts[1:]) + "/", f"file:{root}",
                 f"file://{root}/"]
    events = [publish(open_ledger(tmp_path, spellings[0]), k) for k in range(4)]
    for n, spelling in enumerate(spellings[1:]):
        queue = queue_of(open_ledger(tmp_path, spelling))
        made = queue.create_plan(f"s{n}", max_batch=1)
        assert made is not None and made.created and made.plan.seq == n + 1
        claim = queue.claim(f"r{n}")
        assert claim is not None and claim.plan.seq == n + 1
        queue.commit(claim)
    shown = toolkit_queue(config_repo(tmp_path, spellings[1]), "--format", "json")
    assert shown.returncode == 0, shown.stderr
    document = json.loads(shown.stdout)
    assert [b["state"] for b in document["batches"]] == ["consumed"] * 3 and len(document["pending"]) == 1
    drain(queue_of(open_ledger(tmp_path, spellings[0])), "last")
    assert_exactly_once(queue_of(open_ledger(tmp_path)), events)
    assert [p.name for p in root.iterdir()] == ["feed-toolkit"]
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(("conf-", "repo-"))) == ["root"]
