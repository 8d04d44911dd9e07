"""The layouts an ingest run refuses before it takes its lock or starts a stream (toolkit/actions/ingest/runner.py): a
working location (the ledger's) that the feed's instances can hold or lie in, and a cluster root spelled with
`.` or `..` segments; each exit 2 in one sentence, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest.runner import run_ingest
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import UsageError
from toolkit.services.runtime.run_context import RunContext


def tree(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def with_cluster_text(repo: ConfigRepo, old: str, new: str) -> ConfigRepo:
    cluster = repo.root / "clusters/primary.yaml"
    cluster.write_text(cluster.read_text().replace(old, new))
    return ConfigRepo.load(repo.root)


@pytest.mark.parametrize("working", ["/data/events/2026/01/01/10/ledger", "/data/events", "/"])
def test_a_working_location_overlapping_the_feed_is_refused(tmp_path: Path, working: str) -> None:
    repo, root = make_repo(tmp_path)
    repo = with_cluster_text(repo, "working: /working", f"working: {working}")
    (root / "landing/events/a.csv").write_text("2026-01-01T10:05:00Z,u1,x,/home,12\n")
    before = tree(tmp_path)
    with pytest.raises(UsageError, match=rf"^The data location '/data/events/.*' of feed 'events' overlaps the "
                                         rf"working location '{working}' of cluster 'primary', where the ledger "
                                         r"lives: give them folders apart\.$") as refused:
        run_ingest(None, repo, "events", "primary", RunContext(LocalFileSystem(), run_id="r1"))  # type: ignore[arg-type]
    assert refused.value.exit_code == 2 and tree(tmp_path) == before


@pytest.mark.parametrize("spelling", ["file://X/../root", "file:X/./", "file://X/landing/.."])
def test_a_root_with_dot_segments_is_refused(tmp_path: Path, spelling: str) -> None:
    repo, root = make_repo(tmp_path)
    repo = with_cluster_text(repo, f"file://{root}", spelling.replace("X", str(root)))
    before = tree(tmp_path)
    with pytest.raises(UsageError, match=r"^The cluster root '.*' \(interfaces.write.endpoint\) has a '\.' or '\.\.' "
                                         r"segment: give it without them\.$"):
        run_ingest(None, repo, "events", "primary", RunContext(LocalFileSystem(), run_id="r1"))  # type: ignore[arg-type]
    assert tree(tmp_path) == before
