"""Retention never touches what it was not asked to (issue 12) on the local file system (pure Python): the
cluster root in every spelling, symbolic links inside a feed (left in place, reported, never followed), the
cluster root protected from deletion, and table partitions whose location climbs out of the table."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import hourly_instances, make_repo, tree, utc
from toolkit.actions.retention.runner import run_retention
from toolkit.actions.retention.tables import under
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.filesystem import FileSystem, StorageError
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import UsageError
from toolkit.services.runtime.run_context import RunContext

NOMINAL = utc(2026, 4, 1, 10)  # clicks on primary keeps days(90): the cut-off is 2026-01-01T10:00Z


def with_root(repo: Path, root: Path, spelling: str) -> None:
    """Write `root` into the primary cluster's endpoint as `spelling` says; for `file:///` the feed's paths and
    the working location name the temporary folder instead (nothing is written outside it)."""
    cluster = repo / "clusters/primary.yaml"
    text = cluster.read_text()
    if spelling == "file:///":
        text = text.replace(f"file://{root}", "file:///").replace("/feed-toolkit/", f"{root}/feed-toolkit/")
        feed = repo / "feeds/clicks.yaml"
        feed.write_text(feed.read_text().replace("data: /data/clicks/", f"data: {root}/data/clicks/"))
    else:
        text = text.replace(f"file://{root}", spelling.replace("X", str(root)))
    cluster.write_text(text)


@pytest.mark.parametrize("spelling", ["file:X", "file://X", "file://X/", "file:///"])
def test_every_spelling_of_the_root_finds_and_evicts_the_same(tmp_path: Path, spelling: str) -> None:
    repo, root = make_repo(tmp_path)
    with_root(repo, root, spelling)
    hourly_instances(root, utc(2025, 12, 31, 20), 24)  # 2025-12-31T20:00Z .. 2026-01-01T19:00Z
    result = run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(LocalFileSystem()))
    assert [item.time for item in result.evicted] == [f"2025-12-31T{h}:00Z" for h in (20, 21, 22, 23)] + [
        f"2026-01-01T{h:02d}:00Z" for h in range(10)]
    assert [item.path for item in result.evicted][0] == f"file://{root}/data/clicks/2025/12/31/20"
    assert not (root / "data/clicks/2025").exists()
    assert sorted(p.name for p in (root / "data/clicks/2026/01/01").iterdir()) == [f"{h}" for h in range(10, 20)]
    assert (root / "feed-toolkit/working/retention/clicks/20260401T1000Z.json").exists()
    # the batch of evictions names each instance in the one spelling too
    [batch] = (root / "feed-toolkit/working/ledger/evictions/clicks").iterdir()
    locations = [item["location"] for item in json.loads(batch.read_text())["instances"]]
    assert locations == [item.path for item in result.evicted] and locations[0].startswith(f"file://{root}/data/")


@pytest.mark.parametrize("spelling", ["file://X/../primary", "file:X/./", "file://X/data/.."])
def test_a_root_with_dot_segments_is_a_bad_config_and_nothing_is_touched(tmp_path: Path, spelling: str) -> None:
    repo, root = make_repo(tmp_path)
    with_root(repo, root, spelling)
    hourly_instances(root, utc(2025, 12, 31, 20), 2)
    before = tree(tmp_path)
    with pytest.raises(UsageError, match=r"^The cluster root '.*' \(interfaces.write.endpoint\) has a '\.' or '\.\.' "
                                         r"segment: give it without them\.$") as refused:
        run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(LocalFileSystem(), run_id="r1"))
    assert refused.value.exit_code == 2 and tree(tmp_path) == before


def test_a_link_above_the_feeds_folder_is_reported_and_nothing_through_it_is_evicted(tmp_path: Path) -> None:
    """`data` (above the feed's folder data/clicks) leads outside the root: its instances are not the feed's."""
    repo, root = make_repo(tmp_path)
    outside = tmp_path / "outside"
    hourly_instances(outside, utc(2025, 12, 31, 0), 3)
    os.symlink(outside / "data", root / "data")
    before = tree(outside)
    result = run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL,
                           RunContext(LocalFileSystem(), run_id="r1"))
    assert (result.status, result.evicted, result.links_left) == ("SUCCEEDED", [], [f"file://{root}/data"])
    assert tree(outside) == before and os.path.islink(root / "data")
    assert not (root / "feed-toolkit/working/ledger/evictions").exists()  # no batch of evictions recorded


@pytest.mark.parametrize("working", ["/data/clicks/2025/12/31/01/ledger", "/data/clicks/2025", "/data"])
def test_a_working_location_that_the_feeds_instances_can_hold_or_lie_in_is_refused(tmp_path: Path,
                                                                                   working: str) -> None:
    """The ledger inside an instance would be evicted with it; instances inside the ledger's folder would mix
    with it: refused before anything is read, locked or deleted (exit 2)."""
    repo, root = make_repo(tmp_path)
    hourly_instances(root, utc(2025, 12, 31, 0), 3)
    cluster = repo / "clusters/primary.yaml"
    cluster.write_text(cluster.read_text().replace("working: /feed-toolkit/working", f"working: {working}"))
    before = tree(root)
    with pytest.raises(UsageError, match="^" + re.escape(
            "The data location '/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}' of feed 'clicks' overlaps the working "
            f"location '{working}' of cluster 'primary', where the ledger lives: give them folders apart.") + "$"):
        run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(LocalFileSystem(), run_id="r1"))
    assert tree(root) == before


def test_a_link_to_a_folder_outside_the_feed_is_left_reported_and_never_followed(tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    hourly_instances(root, utc(2025, 12, 31, 0), 24)
    (root / "data/clicks/2025/notes.txt").write_text("keep\n")  # the year is not deleted in one piece
    outside = tmp_path / "outside"
    hourly_instances(outside, utc(2025, 11, 1, 0), 2, template="")  # instance-shaped, outside the feed
    (outside / "2025/11/notes.txt").write_text("keep\n")  # the month is not deleted in one piece either
    os.symlink(outside / "2025/11", root / "data/clicks/2025/11")  # a month of the feed that is a link
    within = tmp_path / "within"
    within.mkdir()
    (within / "precious").write_text("keep\n")
    os.symlink(within, root / "data/clicks/2025/12/31/03/link")  # a link inside an expired instance
    before = tree(outside), tree(within)
    result = run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL,
                           RunContext(LocalFileSystem(), run_id="r1"))
    assert result.status == "SUCCEEDED"
    assert (tree(outside), tree(within)) == before  # no target is followed or deleted through
    assert os.path.islink(root / "data/clicks/2025/11")  # the link itself is foreign: left in place
    assert [item.time for item in result.evicted] == [f"2025-12-31T{h:02d}:00Z" for h in range(24)]
    link = f"file://{root}/data/clicks/2025/11"
    assert result.links_left == [link]
    report = json.loads((root / "feed-toolkit/working/retention/clicks/20260401T1000Z.json").read_text())
    assert report["links_left"] == [link] and report["instances_evicted"] == 24


def test_the_cluster_root_cannot_be_deleted_once_retention_knows_it(tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    hourly_instances(root, utc(2025, 12, 31, 0), 2)
    fs: FileSystem = LocalFileSystem()
    run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(fs))
    with pytest.raises(StorageError, match=f"file://{root}"):
        fs.delete(f"file://{root}", recursive=True)
    assert (root / "feed-toolkit").is_dir()


@pytest.mark.parametrize(("location", "inside"), [
    ("file:///w/table/ds=1", True),
    ("file:///w/table/../elsewhere/ds=1", False),  # climbs out: never deleted through the climb
    ("file:///w/table/ds=1/..", False),
    ("file:///w/table/./ds=1", False),
    ("file:///w/table", False),
    ("file:///w/table-2/ds=1", False),
])
def test_a_partition_is_inside_its_table_only_without_dot_segments(location: str, inside: bool) -> None:
    assert under(location, "file:///w/table") is inside
    assert under(location, "file:///w/./table") is False
