"""The calls compaction refuses before it reads a byte or starts Spark (toolkit/actions/ingest/compaction.py): a target
size that is no size, a time that is no instance, a feed without ingest (exit 2, one sentence, also through the
real entrypoint script), safemode (5) and a suspended feed (4)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest.compaction import DEFAULT_TARGET, compact_instance, compaction_call, target_size
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.control import Control
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import BlockedError, SkippedError, UsageError
from toolkit.services.runtime.run_context import RunContext

TEN = datetime(2026, 1, 1, 10, tzinfo=timezone.utc)


def with_target(tmp_path: Path, size: str | None) -> ConfigRepo:
    extra = "" if size is None else f"properties:\n  compaction.target-size: {json.dumps(size)}\n"
    return make_repo(tmp_path, extra=extra)[0]


@pytest.mark.parametrize(("size", "expected"), [(None, DEFAULT_TARGET), ("128MB", 128 * 1024 ** 2),
                                                ("1048576", 1024 ** 2), ("2 gb", 2 * 1024 ** 3), ("512KB", 512 * 1024)])
def test_the_target_size_in_bytes_or_with_a_unit(tmp_path: Path, size: str | None, expected: int) -> None:
    assert target_size(with_target(tmp_path, size).feed("events")) == expected


@pytest.mark.parametrize("size", ["0", "12 parsecs", "-5MB", "1.5GB"])
def test_a_target_size_that_is_no_size_is_refused_naming_the_property(tmp_path: Path, size: str) -> None:
    with pytest.raises(UsageError, match="compaction.target-size of feed 'events' is .* such as 128MB"):
        compaction_call(with_target(tmp_path, size), "events", "primary", TEN)


def test_a_time_outside_the_validity_is_skipped_with_exit_4_as_every_action_skips_it(tmp_path: Path) -> None:
    with pytest.raises(SkippedError, match="2027-02-01T10:00Z is outside the validity of feed 'events'") as skipped:
        compaction_call(make_repo(tmp_path)[0], "events", "primary", TEN.replace(year=2027, month=2))
    assert skipped.value.exit_code == 4


@pytest.mark.parametrize("switch", ["safemode", "suspended"])
def test_safemode_blocks_and_a_suspended_feed_skips_before_anything_is_read(tmp_path: Path, switch: str) -> None:
    repo, _ = make_repo(tmp_path)
    control = Control(LocalFileSystem(), LedgerLayout.of(repo.cluster("primary")))
    if switch == "safemode":
        control.set_safemode(True, "2026-01-02T00:00:00Z", "test")
    else:
        control.set_suspended("feed", "events", True, "2026-01-02T00:00:00Z", "test")
    with pytest.raises(BlockedError if switch == "safemode" else SkippedError):
        compact_instance(None, compaction_call(repo, "events", "primary", TEN),
                         RunContext(LocalFileSystem(), run_id="r"))  # type: ignore[arg-type]


def test_an_instance_below_a_link_is_refused_and_nothing_through_it_moves(tmp_path: Path) -> None:
    """`data/events` leads outside the cluster root: compaction would write and rename there."""
    repo, root = make_repo(tmp_path)
    outside = tmp_path / "outside"
    (outside / "2026/01/01/10").mkdir(parents=True)
    for n in range(3):
        (outside / f"2026/01/01/10/part-{n}.parquet").write_bytes(b"rows")
    (outside / "2026/01/01/10/_SUCCESS").write_bytes(b"")
    (root / "data").mkdir()
    os.symlink(outside, root / "data/events")
    before = tree(outside)
    with pytest.raises(StorageError, match=rf"^Cannot write file://{root}/data/events/2026/01/01/10: "
                                           rf"file://{root}/data/events, on its way from the cluster root, is a "
                                           r"symbolic link, which the toolkit never follows") as refused:
        compact_instance(None, compaction_call(repo, "events", "primary", TEN),
                         RunContext(LocalFileSystem(), run_id="r"))  # type: ignore[arg-type]
    assert refused.value.exit_code == 1 and tree(outside) == before
    assert not (root / "working").exists()  # no lock taken, nothing recorded


@pytest.mark.parametrize("working", ["/data/events/2026/01/01/10/ledger", "/data"])
def test_a_working_location_overlapping_the_feed_is_refused_before_spark(tmp_path: Path, working: str) -> None:
    repo, root = make_repo(tmp_path)
    cluster = repo.root / "clusters/primary.yaml"
    cluster.write_text(cluster.read_text().replace("working: /working", f"working: {working}"))
    with pytest.raises(UsageError, match=rf"^The data location '/data/events/.*' of feed 'events' overlaps the "
                                         rf"working location '{working}' of cluster 'primary'"):
        compaction_call(ConfigRepo.load(repo.root), "events", "primary", TEN)


@pytest.mark.parametrize("spelling", ["file://X/../root", "file:X/."])
def test_a_root_with_dot_segments_is_refused_before_anything_is_read(tmp_path: Path, spelling: str) -> None:
    repo, root = make_repo(tmp_path)
    cluster = repo.root / "clusters/primary.yaml"
    cluster.write_text(cluster.read_text().replace(f"file://{root}", spelling.replace("X", str(root))))
    before = tree(tmp_path)
    with pytest.raises(UsageError, match=r"^The cluster root '.*' \(interfaces.write.endpoint\) has a '\.' or '\.\.' "
                                         r"segment: give it without them\.$"):
        compact_instance(None, compaction_call(ConfigRepo.load(repo.root), "events", "primary", TEN),
                         RunContext(LocalFileSystem(), run_id="r"))
    assert tree(tmp_path) == before


def tree(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}
