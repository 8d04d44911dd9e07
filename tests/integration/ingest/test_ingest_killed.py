"""An ingest run killed with SIGKILL at each point of a batch's commit and of the moving of its landing files, and at
a random moment, then run again: every record of the landing files is in the feed exactly once (the same rows,
none twice), each dead letter once, each closed hour flagged and published once, no landing file is read into a
second batch, and every committed landing file has left the landing folder.

The killed run is a real separate process running the real action; the harness there sends itself SIGKILL at the
chosen call (the code under test is not changed). At a kill point the process runs on the test session's JVM
(tests/integration/attached_driver.py: the point is a Python call, where the run has no work in the JVM); killed at
a random moment, it has a Spark JVM of its own, which exits with it. The rerun holds the lease the killed run left
once it has expired (a lease of 2 seconds)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.integration.attached_driver import ATTACHED_SESSION, killed_on_the_sessions_jvm, own_session
from tests.integration.ingest.landing import GOOD_A, GOOD_B, drop, drop_first_two
from tests.integration.ingest.test_ingest_runner import dead_letters
from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest.runner import run_ingest
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.jvm_classes import jar_path
from toolkit.services.runtime.run_context import RunContext

PROJECT = Path(__file__).resolve().parents[3]
LEASE = 2.0
KILLED_RUN = """
import os, signal, sys, time
sys.path.insert(0, {project!r})
from toolkit.core.entities.repo import ConfigRepo
from toolkit.actions.ingest import commit, landing, runner
from toolkit.core.ledger import ingest_book as book
from toolkit.core.ledger import store
from toolkit.core.storage.hadoop import HadoopFileSystem

from tests.kill_points import dies_at
from toolkit.services.runtime.run_context import RunContext

point = {point!r}
if point == "before the plan":
    dies_at(book.IngestBook, "write_batch", 1)
elif point == "after the plan":
    dies_at(commit, "move_into_place", 1)
elif point == "after one rename":
    dies_at(commit, "move_into_place", 2)
elif point == "before committed":
    dies_at(book.IngestBook, "write_batch", 2)
elif point == "while closing":
    dies_at(store.Ledger, "record_publication", 2)
elif point == "before the landing files move":
    dies_at(landing, "move_out", 1)
elif point == "after one landing file moved":
    dies_at(landing, "move_out", 2)
elif point == "before the landing book":
    dies_at(book.IngestBook, "write_landing", 2)
{session}
runner.run_ingest(spark, ConfigRepo.load({repo!r}), "events", "primary",
                  RunContext(HadoopFileSystem(spark), run_id="killed", lease_seconds={lease}))
"""
POINTS = ["before the plan", "after the plan", "after one rename", "before committed", "while closing",
          "before the landing files move", "after one landing file moved", "before the landing book"]


def _script(repo: Path, point: str, session: str) -> str:
    return KILLED_RUN.format(project=str(PROJECT), repo=str(repo), point=point, lease=LEASE, session=session)


def _on_its_own_jvm(repo: Path) -> subprocess.Popen[bytes]:
    """The killed run (no kill point) with a Spark JVM of its own, started."""
    script = _script(repo, "none", own_session(jar_path()))
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _killed_run(spark, repo: Path, point: str) -> None:  # type: ignore[no-untyped-def]
    killed_on_the_sessions_jvm(spark, _script(repo, point, ATTACHED_SESSION), cwd=repo.parent)
    time.sleep(LEASE + 0.5)  # its lease expires


def _check_exactly_once(spark, repo_path: Path, root: Path) -> None:  # type: ignore[no-untyped-def]
    from toolkit.core.entities.repo import ConfigRepo
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo = ConfigRepo.load(repo_path)
    fs = HadoopFileSystem(spark)
    run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="rerun"))
    written = spark.read.parquet(*(f"file://{root}/data/events/2026/01/01/{h}" for h in (10, 11, 12)))
    got = sorted((r.ts, r.user) for r in written.collect())
    assert got == sorted((line.split(",")[0], line.split(",")[1]) for line in GOOD_A + GOOD_B)  # each once
    assert [(Path(d["file"]).name, d["line"]) for d in dead_letters(root)] == [("a.csv", 2), ("a.csv", 4),
                                                                              ("b.csv", 2)]
    ledger = Ledger.of(fs, repo.cluster("primary"))
    for hour in (10, 11):
        t = datetime(2026, 1, 1, hour, tzinfo=timezone.utc)
        assert [e.kind for e in ledger.events("events", t)] == ["published"]
        assert (root / f"data/events/2026/01/01/{hour}/_SUCCESS").is_file()
    assert not list((root / "working/ingest/events/staging").glob("*/*"))  # nothing left staged
    landing = root / "landing" / "events"
    assert [p.name for p in landing.iterdir()] == ["_ingested"]  # every committed file moved out, once
    assert sorted(p.name for p in landing.glob("_ingested/*/*")) == ["a.csv", "b.csv"]


@pytest.mark.parametrize("point", POINTS)
def test_killed_at_each_point_of_a_commit_then_rerun_ingests_each_record_once(spark, tmp_path: Path,
                                                                              point: str) -> None:
    repo, root = make_repo(tmp_path)
    drop_first_two(root)
    _killed_run(spark, repo.root, point)
    _check_exactly_once(spark, repo.root, root)


@pytest.mark.jvm
def test_killed_at_a_random_moment_then_rerun_ingests_each_record_once(spark, tmp_path: Path) -> None:
    seed = random.randrange(10**6)
    after = random.Random(seed).uniform(4.0, 14.0)
    repo, root = make_repo(tmp_path)
    drop_first_two(root)
    child = _on_its_own_jvm(repo.root)
    time.sleep(after)
    child.send_signal(signal.SIGKILL)
    child.communicate(timeout=60)
    time.sleep(LEASE + 0.5)
    _check_exactly_once(spark, repo.root, root)
    print(f"killed after {after:.1f} s (seed {seed})")


@pytest.mark.jvm
def test_killed_at_random_moments_over_the_files_real_producers_send_then_rerun_ingests_each_record_once(
        spark, tmp_path: Path) -> None:
    """Rounds of a producer (a reused name, a file appended to between runs, a colon and spaces in names, a link
    to a file outside) each followed by a run SIGKILLed at a seeded random moment; then one run to the end. Every
    good record is in the feed once, every bad one and the link in the dead letters once, the link's target never
    read, and nothing but `_ingested` is left in the landing folder."""
    from toolkit.core.storage.hadoop import HadoopFileSystem

    seed = int(os.environ.get("INGEST_KILL_SEED") or random.randrange(10**6))  # the seed printed replays a failure
    rng = random.Random(seed)
    repo, root = make_repo(tmp_path)
    landing = root / "landing" / "events"
    secret = tmp_path / "secret.csv"
    secret.write_text("2026-01-01T10:00:00Z,SECRET,x,/s,1\n")
    good: list[str] = []
    bad: list[str] = []

    def lines(count: int, bad_too: bool = False) -> list[str]:
        made = []
        for _ in range(count):
            user = f"u{len(good):04d}"
            good.append(user)
            made.append(f"2026-01-01T1{len(good) % 3}:05:00Z,{user},x,/home,1")
        if bad_too:
            bad.append(f"broken {len(bad)}")
            made.append(bad[-1])
        return made

    def append(name: str, count: int) -> None:
        with (landing / name).open("a") as out:  # by name: a new file when the last one was moved out
            out.write("".join(line + "\n" for line in lines(count)))

    def drop_or_reuse(name: str, count: int) -> None:
        if (landing / name).exists():  # a spooler reuses a name only once its file was taken
            name = f"next-{name}"
        drop(root, name, lines(count, bad_too=True))

    def first() -> None:
        drop_or_reuse("a.csv", 3)
        drop(root, "views-2026-01-01T10:00:00.csv", lines(2))
        append("grow.log", 2)
        (landing / "link.csv").symlink_to(secret)

    def second() -> None:
        drop_or_reuse("a.csv", 2)
        append("grow.log", 2)

    def third() -> None:
        append("grow.log", 1)
        drop(root, "b c #%.csv", lines(2, bad_too=True))

    rounds = [first, second, third]
    delays = []
    for producer in rounds:
        producer()
        child = _on_its_own_jvm(repo.root)
        delays.append(rng.uniform(3.0, 14.0))
        try:
            child.communicate(timeout=delays[-1])
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
            child.communicate(timeout=60)
        time.sleep(LEASE + 0.5)
    said = f"seed {seed}, kills after {', '.join(f'{d:.1f}' for d in delays)} s"
    run_ingest(spark, repo, "events", "primary", RunContext(HadoopFileSystem(spark), run_id="rerun"))
    folders = sorted({str(p.parent) for p in (root / "data").rglob("*.parquet")})
    users = sorted(r.user for r in spark.read.parquet(*(f"file://{f}" for f in folders)).collect())
    assert users == sorted(good), said
    letters = [json.loads(line) for f in (root / "rejected" / "events").glob("*.json")
               for line in f.read_text().splitlines()]
    assert sorted(d["record"] for d in letters if d["record"] is not None) == sorted(bad), said
    assert [Path(d["file"]).name for d in letters if d["record"] is None] == ["link.csv"], said
    assert "SECRET" not in json.dumps(letters) + "".join(users), said
    assert [p.name for p in landing.iterdir()] == ["_ingested"], said
    print(said)
