"""Ingest on hostile layouts, on real Spark through Hadoop's file system: a cluster root spelled otherwise
(`file:/x`, a trailing slash) ingests into the same instances, named in one spelling; a link above the feed's
folder, leading outside the cluster root, is refused at the commit (exit 1) with nothing written through it.
(Layouts refused before Spark starts: tests/unit/ingest/test_ingest_calls.py; compaction's:
test_compaction.py and tests/unit/ingest/test_compaction_calls.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.ingest.landing import drop
from tests.integration.ingest.test_ingest_runner import HOUR, rows
from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest.runner import run_ingest
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import StorageError
from toolkit.services.runtime.run_context import RunContext


def spelled(repo: ConfigRepo, root: Path, spelling: str) -> ConfigRepo:
    """The repo with the cluster's write endpoint written as `spelling` (X: the root folder)."""
    cluster = repo.root / "clusters/primary.yaml"
    cluster.write_text(cluster.read_text().replace(f"file://{root}", spelling.replace("X", str(root))))
    return ConfigRepo.load(repo.root)


@pytest.mark.parametrize("spelling", ["file:X", "file://X/"])
def test_a_root_spelled_otherwise_ingests_into_the_same_instances(spark, tmp_path: Path, spelling: str) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path)
    repo = spelled(repo, root, spelling)
    drop(root, "a.csv", ["2026-01-01T10:05:00Z,u1,x,/home,12", "2026-01-01T12:10:00Z,u5,x,/home,1"])
    fs = HadoopFileSystem(spark)
    done = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r1"))
    assert (done.records, done.closed) == (2, ["2026-01-01T10:00Z"])
    assert rows(spark, root, 10) == [("2026-01-01T10:05:00Z", "u1", "/home", 12)]
    [event] = Ledger.of(fs, repo.cluster("primary")).events("events", HOUR[10])
    assert event.location == f"file://{root}/data/events/2026/01/01/10"
    assert sorted(p.name for p in root.iterdir()) == ["data", "landing", "working"]  # nothing beside


def test_a_link_above_the_feeds_folder_is_refused_at_the_commit(spark, tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "data").symlink_to(outside)
    drop(root, "a.csv", ["2026-01-01T10:05:00Z,u1,x,/home,12"])
    with pytest.raises(StorageError, match=rf"^Cannot write file://{root}/data/events/2026/01/01/10: "
                                           rf"file://{root}/data, on its way from the cluster root, is a symbolic "
                                           r"link, which the toolkit never follows") as refused:
        run_ingest(spark, repo, "events", "primary", RunContext(HadoopFileSystem(spark), run_id="r1"))
    assert refused.value.exit_code == 1 and list(outside.iterdir()) == []
    assert [p.name for p in (root / "working").rglob("*") if p.parent.name == "batches"] == []  # nothing planned
