"""Compaction on real Spark (toolkit/actions/ingest/compaction.py): a closed hour that three ingest runs wrote as three
batch files becomes one file with the same rows, the flag kept and a `replaced` event recorded; an open hour
waits (3), a compacted one is skipped (4), a bad call is refused (2), a held ingest lock blocks (5), a cluster
root spelled `file:/x/` compacts the same. A reader listing the instance at each step sees all old files,
nothing (between the renames) or all new files. A run killed with SIGKILL at each step (a separate process on the
test session's JVM: tests/integration/attached_driver.py) is finished by the next: the rows once, no leftover folder.
One run goes through the real spark-submit."""

from __future__ import annotations

import json
import shutil
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from chispa import assert_df_equality

from tests.integration.attached_driver import ATTACHED_SESSION, killed_on_the_sessions_jvm
from tests.integration.ingest.landing import drop
from tests.integration.spark_submit import spark_submit
from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest import compaction
from toolkit.actions.ingest.compaction import compact_instance, compaction_call
from toolkit.actions.ingest.runner import run_ingest
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.errors import BlockedError, SkippedError, UsageError, WaitingError
from toolkit.services.runtime.run_context import RunContext

PROJECT = Path(__file__).resolve().parents[3]
LEASE = 2.0
TEN = datetime(2026, 1, 1, 10, tzinfo=timezone.utc)
ROWS = [("2026-01-01T10:05:00Z", "u1", "/home", 12), ("2026-01-01T10:10:00Z", "u2", "/cart", 7),
        ("2026-01-01T10:20:00Z", "u3", "/home", 3), ("2026-01-01T10:40:00Z", "u4", "/pay", 1)]
SCHEMA = "ts string, user string, page string, ms int"
DROPS = [["2026-01-01T10:05:00Z,u1,x,/home,12", "2026-01-01T10:10:00Z,u2,x,/cart,7"],
         ["2026-01-01T10:20:00Z,u3,x,/home,3"],
         ["2026-01-01T10:40:00Z,u4,x,/pay,1", "2026-01-01T12:10:00Z,u5,x,/home,1"]]  # 12:10 closes hour 10


@pytest.fixture(scope="module")
def streamed(spark, tmp_path_factory: pytest.TempPathFactory) -> Path:  # type: ignore[no-untyped-def]
    """A cluster root where three ingest runs wrote hour 10 as three batch files and closed it (12 stays open)."""
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path_factory.mktemp("streamed"))
    for n, lines in enumerate(DROPS):
        drop(root, f"{n}.csv", lines)
        run_ingest(spark, repo, "events", "primary", RunContext(HadoopFileSystem(spark), run_id=f"ingest{n}"))
    return root


def copy_of(streamed: Path, tmp_path: Path) -> tuple[ConfigRepo, Path]:
    repo, root = make_repo(tmp_path)
    shutil.copytree(streamed, root, dirs_exist_ok=True)
    return repo, root


def hour(root: Path, h: int = 10) -> Path:
    return root / f"data/events/2026/01/01/{h:02d}"


def view(root: Path) -> list[str] | None:
    """What a reader listing the instance folder finds (None: no folder)."""
    folder = hour(root)
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else None


def parts(names: list[str] | None) -> list[str]:
    return [n for n in names or [] if n.startswith("part-")]


def check_compacted(spark, repo: ConfigRepo, root: Path) -> None:  # type: ignore[no-untyped-def]
    """The instance is one file with the rows once, its flag, no sibling folder left, one `replaced` event."""
    from toolkit.core.storage.hadoop import HadoopFileSystem

    names = view(root)
    assert len(parts(names)) == 1 and names is not None and "_SUCCESS" in names
    assert_df_equality(spark.read.parquet(f"file://{hour(root)}"), spark.createDataFrame(ROWS, SCHEMA),
                       ignore_row_order=True)
    assert sorted(p.name for p in hour(root).parent.iterdir()) == ["10", "12"]
    events = Ledger.of(HadoopFileSystem(spark), repo.cluster("primary")).events("events", TEN)
    assert [(e.kind, e.producer) for e in events] == [("published", "ingest"), ("replaced", "compaction")]
    assert events[-1].fingerprint is not None and events[-1].fingerprint.files == 1
    record = json.loads((root / "working/ledger/ingest/events/compactions/20260101T1000Z.json").read_text())
    assert (record["state"], record["format_version"], record["rows"]) == ("done", 1, 4)


def test_a_closed_hour_of_three_batch_files_becomes_one_file_with_the_same_rows(spark, streamed: Path,
                                                                                tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = copy_of(streamed, tmp_path)
    assert len(parts(view(root))) == 3
    fs = HadoopFileSystem(spark)
    done = compact_instance(spark, compaction_call(repo, "events", "primary", TEN), RunContext(fs, run_id="compact1"))
    counters = done.counters()
    assert (counters["files_before"], counters["files_after"], counters["rows"], counters["resumed"]) == (3, 1, 4,
                                                                                                          False)
    assert counters["bytes_after"] == (hour(root) / parts(view(root))[0]).stat().st_size
    check_compacted(spark, repo, root)
    with pytest.raises(SkippedError, match=r"holds 1 batch file\(s\) .* nothing to compact") as skipped:
        compact_instance(spark, compaction_call(repo, "events", "primary", TEN), RunContext(fs, run_id="compact2"))
    assert skipped.value.exit_code == 4


def test_a_root_spelled_otherwise_compacts_the_same(spark, streamed: Path, tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = copy_of(streamed, tmp_path)
    cluster = repo.root / "clusters/primary.yaml"
    cluster.write_text(cluster.read_text().replace(f"file://{root}", f"file:{root}/"))
    repo = ConfigRepo.load(repo.root)
    done = compact_instance(spark, compaction_call(repo, "events", "primary", TEN),
                            RunContext(HadoopFileSystem(spark), run_id="compact1"))
    assert (done.record.files_before, done.record.files_after, done.record.instance) == (
        3, 1, f"file://{root}/data/events/2026/01/01/10")
    check_compacted(spark, repo, root)


def test_an_open_or_missing_hour_waits_and_bad_calls_are_refused(spark, streamed: Path, tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = copy_of(streamed, tmp_path)
    fs = HadoopFileSystem(spark)
    for h, reason in ((12, "_SUCCESS does not exist"), (11, "does not exist")):
        with pytest.raises(WaitingError, match=f"2026-01-01T{h}:00Z of feed 'events' .*{reason}") as waiting:
            compact_instance(spark, compaction_call(repo, "events", "primary", TEN.replace(hour=h)),
                             RunContext(fs, run_id="w"))
        assert waiting.value.exit_code == 3
    with pytest.raises(UsageError, match="2026-01-01T10:30Z is not an instance of feed 'events'"):
        compact_instance(spark, compaction_call(repo, "events", "primary", TEN.replace(minute=30)),
                         RunContext(fs, run_id="u"))
    plain = (repo.root / "feeds/events.yaml").read_text().split("ingest:")[0].replace("name: events", "name: plain")
    (repo.root / "feeds/plain.yaml").write_text(plain)
    with pytest.raises(UsageError, match="The feed 'plain' has no ingest section"):
        compact_instance(spark, compaction_call(ConfigRepo.load(repo.root), "plain", "primary", TEN),
                         RunContext(fs, run_id="u"))
    assert len(parts(view(root))) == 3


def test_a_second_caller_is_told_who_holds_the_ingest_lock(spark, streamed: Path, tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = copy_of(streamed, tmp_path)
    fs = HadoopFileSystem(spark)
    lock = Ledger.of(fs, repo.cluster("primary")).ingest_lock("events")
    assert lock.try_acquire("ingestrun1", None).taken
    with pytest.raises(BlockedError, match="run ingestrun1 on") as blocked:
        compact_instance(spark, compaction_call(repo, "events", "primary", TEN), RunContext(fs, run_id="compact1"))
    assert blocked.value.exit_code == 5 and len(parts(view(root))) == 3
    lock.release()


def test_a_reader_sees_all_old_files_nothing_or_all_new_files(spark, streamed: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = copy_of(streamed, tmp_path)
    old = view(root)
    seen: list[tuple[str, list[str] | None]] = []
    for step in ("move_aside", "move_in", "remove_old"):
        real = getattr(compaction, step)

        def watched(*args, _real=real, _step=step):  # type: ignore[no-untyped-def]
            seen.append((_step, view(root)))
            return _real(*args)
        monkeypatch.setattr(compaction, step, watched)
    compact_instance(spark, compaction_call(repo, "events", "primary", TEN),
                     RunContext(HadoopFileSystem(spark), run_id="compact1"))
    new = view(root)
    assert new is not None and old is not None and len(parts(old)) == 3 and len(parts(new)) == 1
    assert set(parts(old)).isdisjoint(parts(new)) and "_SUCCESS" in old and "_SUCCESS" in new
    assert seen == [("move_aside", old), ("move_in", None), ("remove_old", new)]


KILLED_RUN = """
import os, signal, sys
from datetime import datetime, timezone
sys.path.insert(0, {project!r})
from toolkit.core.entities.repo import ConfigRepo
from toolkit.actions.ingest import compaction
from toolkit.services.runtime.run_context import RunContext
from toolkit.core.storage.hadoop import HadoopFileSystem

def dies_at(name):
    def killed(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)
    setattr(compaction, name, killed)

dies_at({step!r})
{session}
call = compaction.compaction_call(ConfigRepo.load({repo!r}), "events", "primary",
                                  datetime(2026, 1, 1, 10, tzinfo=timezone.utc))
compaction.compact_instance(spark, call, RunContext(HadoopFileSystem(spark), run_id="killed", lease_seconds={lease}))
"""


def _killed(spark, repo: Path, step: str, cwd: Path) -> None:  # type: ignore[no-untyped-def]
    script = KILLED_RUN.format(project=str(PROJECT), repo=str(repo), step=step, lease=LEASE, session=ATTACHED_SESSION)
    killed_on_the_sessions_jvm(spark, script, cwd=cwd)


@pytest.mark.parametrize(("step", "reader_sees", "resumed"), [
    ("move_aside", "old", False),  # the new folder written and checked, nothing renamed: done anew
    ("move_in", "nothing", True),  # the batch files renamed away, the new folder not in place: put in place
    ("remove_old", "new", True),  # both renames done, the old folder still there: deleted
])
def test_killed_at_each_step_then_rerun_leaves_the_rows_once_and_no_leftover_folder(
        spark, streamed: Path, tmp_path: Path, step: str, reader_sees: str, resumed: bool) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = copy_of(streamed, tmp_path)
    old = view(root)
    _killed(spark, repo.root, step, tmp_path)
    now = view(root)
    if reader_sees == "old":
        assert now == old
    elif reader_sees == "nothing":
        assert now is None
    else:
        assert now is not None and len(parts(now)) == 1 and "_SUCCESS" in now
    time.sleep(LEASE + 0.5)  # the killed run's lease expires
    done = compact_instance(spark, compaction_call(repo, "events", "primary", TEN),
                            RunContext(HadoopFileSystem(spark), run_id="rerun"))
    assert done.resumed is resumed
    check_compacted(spark, repo, root)


@pytest.mark.jvm
def test_the_entrypoint_through_spark_submit(streamed: Path, tmp_path: Path) -> None:
    repo, root = copy_of(streamed, tmp_path)
    result = spark_submit("compact", "--repo", str(repo.root), "--feed", "events", "--cluster", "primary",
                          "--time", "2026-01-01T10:00Z", cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    status = json.loads(result.stdout.strip().splitlines()[-1])
    assert {k: status[k] for k in ("status", "action", "entity", "time", "cluster", "files_before", "files_after",
                                   "rows")} == {"status": "SUCCEEDED", "action": "compaction", "entity": "events",
                                                "time": "2026-01-01T10:00Z", "cluster": "primary",
                                                "files_before": 3, "files_after": 1, "rows": 4}
    assert status["instance"] == f"file://{hour(root)}" and status["bytes_after"] > 0
    assert len(parts(view(root))) == 1


def test_an_ingest_run_finishes_a_killed_compaction_before_its_late_records_land(spark, tmp_path: Path) -> None:
    """Killed after the first rename (the instance folder is away); its lease expires; an ingest run with a late
    record of hour 10 first puts the compacted folder in place
    (toolkit/actions/ingest/compaction.py::finish_unfinished), then writes the late batch file into it: readers never
    find the hour holding only the late record."""
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path)
    fs = HadoopFileSystem(spark)
    for n, lines in enumerate(DROPS):
        drop(root, f"{n}.csv", lines)
        run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id=f"ingest{n}"))
    _killed(spark, repo.root, "move_in", tmp_path)
    assert view(root) is None  # between the renames
    time.sleep(LEASE + 0.5)
    drop(root, "late.csv", ["2026-01-01T10:50:00Z,u9,x,/late,9"])
    run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="late"))
    names = view(root)
    assert names is not None and len(parts(names)) == 2 and "_SUCCESS" in names  # compacted + late
    assert_df_equality(spark.read.parquet(f"file://{hour(root)}"),
                       spark.createDataFrame([*ROWS, ("2026-01-01T10:50:00Z", "u9", "/late", 9)], SCHEMA),
                       ignore_row_order=True)
    assert sorted(p.name for p in hour(root).parent.iterdir()) == ["10", "12"]  # no folder left beside it
    record = json.loads((root / "working/ledger/ingest/events/compactions/20260101T1000Z.json").read_text())
    assert record["state"] == "done"
    assert not list((root / "working/ledger/ingest/events/compactions/unfinished").iterdir())
    events = Ledger.of(fs, repo.cluster("primary")).events("events", TEN)
    assert [e.producer for e in events][-2:] == ["compaction", "ingest"]  # the swap finished, then the late file
    assert [e.kind for e in events][-2:] == ["replaced", "replaced"]


# ------------------------------------------------------------------ the lifecycle: definition and failure notice
def test_the_entrypoint_records_the_definition_in_its_event_and_lineage_run(run_entrypoint, streamed: Path,
                                                                           tmp_path: Path) -> None:
    from tests.lineage_receiver import lineage_receiver
    from toolkit.core.entities.provenance import definition_hash

    repo, _ = copy_of(streamed, tmp_path)
    expected = definition_hash(repo.feed("events"), repo.root)
    with lineage_receiver() as receiver:
        result = run_entrypoint("compact", "--repo", str(repo.root), "--feed", "events", "--cluster", "primary",
                                "--time", "2026-01-01T10:00Z", cwd=tmp_path,
                                env={"OPENLINEAGE_URL": receiver.url})
    assert result.returncode == 0, result.stderr[-3000:]
    from toolkit.core.storage.local import LocalFileSystem

    ledger = Ledger.of(LocalFileSystem(), repo.cluster("primary"))
    [event] = [e for e in ledger.events("events", TEN) if e.producer == "compaction"]
    assert event.definition is not None and event.definition.definition == expected
    runs = [e["run"]["facets"]["feedToolkit_run"] for e in receiver.events]
    assert [e["eventType"] for e in receiver.events] == ["START", "COMPLETE"]
    assert [facet["definitionHash"] for facet in runs] == [expected, expected]


def test_a_failed_compaction_tells_the_feeds_notification_and_moves_nothing(run_entrypoint, monkeypatch,
                                                                           streamed: Path, tmp_path: Path) -> None:
    """A failure of exit 1 (the compacted files reading back other rows, injected) reaches the feed's webhook."""
    from tests.lineage_receiver import lineage_receiver
    from tests.notified_feed import notify_by_webhook

    repo, root = copy_of(streamed, tmp_path)
    digests = iter([(4, 7), (3, 7)])
    monkeypatch.setattr(compaction, "_digest", lambda frame: next(digests))
    with lineage_receiver("/hook") as hook:
        notify_by_webhook(repo.root, "primary", "events", hook.url + "/hook")
        result = run_entrypoint("compact", "--repo", str(repo.root), "--feed", "events", "--cluster", "primary",
                                "--time", "2026-01-01T10:00Z", cwd=tmp_path)
    assert result.returncode == 1, result.stderr[-3000:]
    status = json.loads(result.stdout.strip().splitlines()[-1])
    assert (status["status"], status["notifications_sent"]) == ("FAILED", 1)
    [notice] = hook.events
    assert {k: notice[k] for k in ("event", "kind", "entity", "cluster", "instance", "status", "run_id")} == {
        "event": "failed", "kind": "feed", "entity": "events", "cluster": "primary",
        "instance": "2026-01-01T10:00Z", "status": "FAILED", "run_id": status["run_id"]}
    assert "read back 3 rows" in notice["error"]
    assert notice["rerun"] == (f"spark-submit entrypoints/compact.py --repo {repo.root} --feed events --cluster "
                               "primary --time 2026-01-01T10:00Z")  # the script that exists: compact.py
    assert (PROJECT / "entrypoints/compact.py").is_file()
    assert len(parts(view(root))) == 3  # nothing swapped
