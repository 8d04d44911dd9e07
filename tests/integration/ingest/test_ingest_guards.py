"""What stops an ingest batch half-way (toolkit/actions/ingest/runner.py), on real Spark: a run whose lease another run
took over while it staged commits nothing (the lease is checked again right before the commit) and a rerun
ingests the records once; a batch whose staging fails leaves no cached frame behind (a `--for` run goes on in
the same session), and Spark writing more than one file for an instance is the toolkit's failure (exit 1), not
a bad call."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.ingest.landing import drop
from tests.integration.ingest.test_ingest_runner import rows
from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest.runner import run_ingest
from toolkit.core.ledger.locks import LockLostError
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import FileStatus
from toolkit.core.storage.hadoop import HadoopFileSystem
from toolkit.errors import ToolkitError
from toolkit.services.runtime.run_context import RunContext


class StagingHook(HadoopFileSystem):
    """Hadoop's file system, calling `hook` once when the ingest lists a staged instance folder: after Spark
    wrote the batch's files, before the batch is committed."""

    def __init__(self, spark, hook: Callable[[], None]) -> None:  # type: ignore[no-untyped-def]
        super().__init__(spark)
        self.hook: Callable[[], None] | None = hook

    def list(self, path: str) -> list[FileStatus]:
        if self.hook is not None and "/staging/" in path and "/data/_instance=" in path:
            hook, self.hook = self.hook, None
            hook()
        return super().list(path)


def test_a_run_whose_lease_is_taken_over_while_it_stages_commits_nothing(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    drop(root, "a.csv", ["2026-01-01T10:05:00Z,u1,x,/home,12"])
    # another host whose clock is an hour ahead finds the lease expired and takes it over
    thief = Ledger.of(HadoopFileSystem(spark), repo.cluster("primary"),
                      clock=lambda: time.time() + 3600).ingest_lock("events")

    def take_over() -> None:
        assert thief.try_acquire("thief").taken

    with pytest.raises(LockLostError, match=r"^The lease of the ingest of feed 'events' on cluster 'primary' is no "
                                            r"longer this run's: The lock \S+/ingest/events/lock\.0 of run r1 was "
                                            r"taken over by another run"):
        run_ingest(spark, repo, "events", "primary", RunContext(StagingHook(spark, take_over), run_id="r1"))
    assert not (root / "data").exists()  # nothing committed
    assert [p.name for p in (root / "working").rglob("*") if p.parent.name == "batches"] == []  # not even planned
    assert thief.current() is not None and thief.current().run_id == "thief"  # type: ignore[union-attr]

    thief.release()
    again = run_ingest(spark, repo, "events", "primary", RunContext(HadoopFileSystem(spark), run_id="r2"))
    assert (again.records, again.replayed) == (1, 0)  # staged anew, once
    assert rows(spark, root, 10) == [("2026-01-01T10:05:00Z", "u1", "/home", 12)]


def test_a_failed_staging_leaves_no_cached_frame_and_several_files_per_instance_is_exit_1(spark,
                                                                                            tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    drop(root, "a.csv", ["2026-01-01T10:05:00Z,u1,x,/home,12", "2026-01-01T10:06:00Z,u2,x,/home,13"])
    cached = spark.sparkContext._jsc.getPersistentRDDs().size()
    spark.conf.set("spark.sql.files.maxRecordsPerFile", "1")  # two files for the two records of 10:00
    try:
        with pytest.raises(ToolkitError) as refused:
            run_ingest(spark, repo, "events", "primary", RunContext(HadoopFileSystem(spark), run_id="r1"))
    finally:
        spark.conf.unset("spark.sql.files.maxRecordsPerFile")
    assert type(refused.value) is ToolkitError and refused.value.exit_code == 1
    assert str(refused.value).startswith("Spark wrote 2 files into file:")
    assert spark.sparkContext._jsc.getPersistentRDDs().size() == cached  # the parsed batch is no longer cached
    assert not (root / "data").exists()
