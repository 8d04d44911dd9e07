"""An ingest run killed with SIGKILL at each point of a batch's commit, and at a random moment, then run again:
every record of the landing files is in the feed exactly once (the same rows, none twice), each dead letter
once, each closed hour flagged and published once, and no landing file is read into a second batch.

The killed run is a real separate process (its own Spark JVM, which exits with it) running the real action;
the harness there sends itself SIGKILL at the chosen call (the code under test is not changed). The rerun holds
the lease the killed run left once it has expired (a lease of 2 seconds)."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.integration.ingest.landing import GOOD_A, GOOD_B, drop_first_two
from tests.integration.ingest.test_ingest_runner import dead_letters
from tests.unit.ingest.ingest_repo import make_repo
from toolkit.ingest.runner import run_ingest
from toolkit.ledger.store import Ledger

pytestmark = pytest.mark.integration

PROJECT = Path(__file__).resolve().parents[3]
LEASE = 2.0
KILLED_RUN = """
import os, signal, sys, time
sys.path.insert(0, {project!r})
from pyspark.sql import SparkSession
from toolkit.entities.repo import ConfigRepo
from toolkit.ingest import book, commit, runner
from toolkit.ledger import store
from toolkit.storage.hadoop import HadoopFileSystem
from toolkit.storage.jvm_classes import jar_path

def dies_at(owner, name, call):
    real = getattr(owner, name)
    calls = [0]
    def wrapped(*args, **kwargs):
        calls[0] += 1
        if calls[0] == call:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)
    setattr(owner, name, wrapped)

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
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "2").config("spark.jars", jar_path()).getOrCreate())
runner.run_ingest(spark, ConfigRepo.load({repo!r}), "events", "primary", HadoopFileSystem(spark), run_id="killed",
                  lease_seconds={lease})
"""
POINTS = ["before the plan", "after the plan", "after one rename", "before committed", "while closing"]


def _killed_run(repo: Path, point: str) -> None:
    script = KILLED_RUN.format(project=str(PROJECT), repo=str(repo), point=point, lease=LEASE)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             cwd=repo.parent)
    out, _ = child.communicate(timeout=180)
    assert child.returncode == -signal.SIGKILL, out.decode()[-3000:]
    time.sleep(LEASE + 0.5)  # its lease expires


def _check_exactly_once(spark, repo_path: Path, root: Path) -> None:  # type: ignore[no-untyped-def]
    from toolkit.entities.repo import ConfigRepo
    from toolkit.storage.hadoop import HadoopFileSystem

    repo = ConfigRepo.load(repo_path)
    fs = HadoopFileSystem(spark)
    run_ingest(spark, repo, "events", "primary", fs, run_id="rerun")
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


@pytest.mark.parametrize("point", POINTS)
def test_killed_at_each_point_of_a_commit_then_rerun_ingests_each_record_once(spark, tmp_path: Path,
                                                                              point: str) -> None:
    repo, root = make_repo(tmp_path)
    drop_first_two(root)
    _killed_run(repo.root, point)
    _check_exactly_once(spark, repo.root, root)


def test_killed_at_a_random_moment_then_rerun_ingests_each_record_once(spark, tmp_path: Path) -> None:
    seed = random.randrange(10**6)
    after = random.Random(seed).uniform(4.0, 14.0)
    repo, root = make_repo(tmp_path)
    drop_first_two(root)
    script = KILLED_RUN.format(project=str(PROJECT), repo=str(repo.root), point="none", lease=LEASE)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    time.sleep(after)
    child.send_signal(signal.SIGKILL)
    child.communicate(timeout=60)
    time.sleep(LEASE + 0.5)
    _check_exactly_once(spark, repo.root, root)
    print(f"killed after {after:.1f} s (seed {seed})")
