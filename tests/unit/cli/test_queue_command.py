"""`toolkit queue` on a local cluster (the template repo with temp roots, real files): a consumer's pending
events, its claimed, open and consumed batches, in text and JSON, and the exit code of a bad call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import hourly_instances, make_repo, utc
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.consumption import ConsumerQueue
from toolkit.core.ledger.locks import holder_name
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem

PROCESS = "clicks-loader"  # a batch consumer of clicks on primary
LOADER = """kind: process
name: clicks-loader
clusters:
  - name: primary
    validity: {start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}
trigger: data
inputs:
  - {name: clicks, feed: clicks}
workflow: {engine: pyspark, path: workflows/hourly_clicks_summary.py}
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def queue_of(conf: Path) -> ConsumerQueue:
    config = ConfigRepo.load(conf)
    return ConsumerQueue(Ledger.of(LocalFileSystem(), config.cluster("primary")), PROCESS, ["clicks"])


@pytest.fixture
def site(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """Four hourly instances of clicks published on primary; returns the repo."""
    conf, root = make_repo(tmp_path)
    (conf / "processes" / f"{PROCESS}.yaml").write_text(LOADER)
    hourly_instances(root, utc(2026, 11, 21, 8), 4)
    for hour in range(8, 12):
        assert run(capsys, "publish", "--repo", str(conf), "--feed", "clicks", "--cluster", "primary",
                   "--time", f"2026-11-21T{hour:02d}:00Z")[0] == 0
    return conf


def queue_json(capsys: pytest.CaptureFixture[str], conf: Path) -> dict:
    code, out, err = run(capsys, "queue", "--repo", str(conf), "--cluster", "primary", "--process", PROCESS,
                         "--format", "json")
    assert (code, err) == (0, "")
    return json.loads(out)


def test_queue_shows_pending_claimed_open_and_consumed_batches(capsys, site: Path) -> None:
    before = queue_json(capsys, site)
    assert (before["process"], before["cluster"], before["feeds"], before["batches"]) == (
        PROCESS, "primary", ["clicks"], [])
    assert [(e["feed"], e["time"], e["kind"]) for e in before["pending"]] == [
        ("clicks", f"2026-11-21T{h:02d}:00Z", "published") for h in range(8, 12)]

    queue = queue_of(site)
    first = queue.create_plan("sweep-1", max_batch=2)
    second = queue.create_plan("sweep-2", max_batch=1)
    queue.create_plan("sweep-3", max_batch=1)
    assert first is not None and second is not None
    consumed = queue.claim("run-a", seq=1)
    assert consumed is not None
    commit = queue.commit(consumed)
    claimed = queue.claim("run-b", seq=2)
    assert claimed is not None

    after = queue_json(capsys, site)
    assert after["pending"] == []
    [one, two, three] = after["batches"]
    assert {k: one[k] for k in ("seq", "state", "events", "first", "last", "planned_by", "run_id", "committed")} == {
        "seq": 1, "state": "consumed", "events": 2, "first": "2026-11-21T08:00Z", "last": "2026-11-21T09:00Z",
        "planned_by": "sweep-1", "run_id": "run-a", "committed": commit.committed}
    assert one["event_ids"] == sorted(first.plan.event_ids) and one["holder"] is None
    assert (two["state"], two["run_id"], two["holder"], two["first"], two["committed"]) == (
        "claimed", "run-b", holder_name(), "2026-11-21T10:00Z", None)
    assert two["since"] is not None and two["lease_ends"] is not None
    assert (three["state"], three["run_id"], three["holder"], three["first"]) == (
        "open", None, None, "2026-11-21T11:00Z")

    code, out, err = run(capsys, "queue", "--repo", str(site), "--cluster", "primary", "--process", PROCESS)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "pending: 0 events" and lines[1] == "batches: 3"
    assert lines[2].split() == ["SEQ", "STATE", "EVENTS", "INSTANCES", "RUN", "HOLDER", "SINCE/COMMITTED"]
    assert lines[3].split() == ["1", "consumed", "2", "2026-11-21T08:00Z..2026-11-21T09:00Z", "run-a", "-",
                                commit.committed]
    assert lines[4].split()[:6] == ["2", "claimed", "1", "2026-11-21T10:00Z..2026-11-21T10:00Z", "run-b",
                                    holder_name()]
    assert lines[5].split() == ["3", "open", "1", "2026-11-21T11:00Z..2026-11-21T11:00Z", "-", "-", "-"]


def test_queue_lists_pending_events_as_text(capsys, site: Path) -> None:
    code, out, _ = run(capsys, "queue", "--repo", str(site), "--cluster", "primary", "--process", PROCESS)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "pending: 4 events" and lines[1].split() == ["TIME", "FEED", "KIND", "EVENT"]
    assert [line.split()[:3] for line in lines[2:6]] == [
        [f"2026-11-21T{h:02d}:00Z", "clicks", "published"] for h in range(8, 12)]
    assert lines[6:] == ["batches: 0"]


@pytest.mark.parametrize(("argv", "message"), [
    (("--cluster", "primary", "--process", "nope"), "nope"),
    (("--cluster", "backup", "--process", PROCESS), "is not defined on cluster 'backup'"),
    (("--cluster", "primary", "--process", "hourly-clicks-summary"), "has a frequency: it consumes no batches"),
    (("--cluster", "primary"), "Give --process"),
    (("--cluster", "primary", "--process", PROCESS, "--format", "xml"), "Unknown --format 'xml'"),
])
def test_queue_refuses_a_bad_call_with_exit_2(capsys, site: Path, argv: tuple[str, ...], message: str) -> None:
    code, out, err = run(capsys, "queue", "--repo", str(site), *argv)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_a_damaged_cursor_is_one_sentence_naming_the_file_and_exit_1(capsys, site: Path) -> None:
    """Issue 33 (7): `toolkit queue` printed a `ValueError: time data ...` traceback."""
    queue_of(site).create_plan("run-a", max_batch=1)
    cursor = Path(f"{queue_of(site).folder}/cursor.json".removeprefix("file://"))
    cursor.write_text(json.dumps({**json.loads(cursor.read_text()), "position": "2026-11-21 10:00"}))
    code, out, err = run(capsys, "queue", "--repo", str(site), "--cluster", "primary", "--process", PROCESS)
    assert (code, out) == (1, "")
    assert "cursor.json" in err and "is damaged" in err and "'position'" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
