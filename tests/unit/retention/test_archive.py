"""Retention `action: archive` on the local file system: every expired instance is copied to the archive location
under its path relative to the cluster root, verified, then removed from the feed; no byte is lost, whatever
state an earlier run left. `chown` and `chmod` are refused before anything is touched (exit 2)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from pathlib import Path

import pytest

from tests.unit.retention.archive_repo import contents, make_archive_repo
from tests.unit.retention.retention_repo import hourly_instances, plant_decoys, utc
from toolkit.actions.retention import retention_entry
from toolkit.actions.retention.runner import run_retention
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import BlockedError, UsageError
from toolkit.extensions.retention_actions.archive_action import STAGING_SUFFIX
from toolkit.extensions.retention_actions.registry import retention_actions
from toolkit.services.runtime.run_context import RunContext

FS = LocalFileSystem()
NOMINAL = utc(2026, 4, 1, 10)  # clicks keeps days(90) on primary: the cut-off is 2026-01-01T10:00Z


def _instances(root: Path) -> None:
    hourly_instances(root, utc(2025, 12, 31, 0), 24 + 12)  # 2025-12-31 00:00 .. 2026-01-01 11:00
    for folder in (root / "data/clicks/2025/12/31").iterdir():
        (folder / "nested").mkdir()
        (folder / "nested" / "part-1.bin").write_bytes(bytes(range(256)) * (int(folder.name) + 1))


def test_archive_moves_every_expired_byte_and_deletes_none(tmp_path: Path) -> None:
    repo, root = make_archive_repo(tmp_path)
    _instances(root)
    decoys = plant_decoys(root)
    before = contents(root, "data")
    result = run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(FS))
    assert result.status == "SUCCEEDED" and len(result.evicted) == 24 + 10
    archived, left = contents(root, "archive/data"), contents(root, "data")
    assert {**archived, **left} == before and not archived.keys() & left.keys()  # every byte, once
    assert sorted({p.rsplit("/", 1)[0] for p in archived if p.startswith("clicks/2026")}) == [
        f"clicks/2026/01/01/{h:02d}" for h in range(10)]
    assert not (root / "data/clicks/2025").exists()  # emptied folders are tidied
    assert all(decoy.exists() for decoy in decoys)
    assert all(item.archived_to == f"file://{root}/archive/" + str(item.path).split(f"{root}/", 1)[1]
               for item in result.evicted)
    report = json.loads(Path(result.report.removeprefix("file://")).read_text())
    assert report["action_taken"] == "archive" and report["instances_evicted"] == 34


class _LateWriter(LocalFileSystem):
    """A producer writes a file into an instance right after the archive's copy of it was verified (its first
    delete): the file system is the real local one, the write is the race."""

    def __init__(self, late: Path) -> None:
        super().__init__()
        self.late = late

    def delete(self, path: str, *, recursive: bool) -> bool:
        if not self.late.exists() and path.startswith(f"file://{self.late.parent}/"):
            self.late.write_bytes(b"arrived late")
        return super().delete(path, recursive=recursive)


def test_a_file_arriving_after_the_verification_is_never_deleted(tmp_path: Path) -> None:
    repo, root = make_archive_repo(tmp_path)
    _instances(root)
    late = root / "data/clicks/2025/12/31/05/part-late.json"
    run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(_LateWriter(late)))
    assert late.read_bytes() == b"arrived late"
    assert sorted(p.name for p in late.parent.iterdir()) == ["part-late.json"]  # the verified files went
    rerun = run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(FS))
    assert [item.path for item in rerun.refused] == [f"file://{late.parent}"]  # reported, kept
    assert late.read_bytes() == b"arrived late"


def test_the_feed_property_retention_archive_names_another_file_system(tmp_path: Path) -> None:
    repo, root = make_archive_repo(tmp_path, archive=None)
    elsewhere = tmp_path / "cold"
    feed = repo / "feeds" / "clicks.yaml"
    feed.write_text(feed.read_text() + f"properties:\n  retention.archive: file://{elsewhere}/clicks-archive\n")
    _instances(root)
    before = contents(root, "data")
    run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(FS))
    archived = contents(elsewhere, "clicks-archive/data")
    assert len(archived) == 34 * 2 + 24 and {**archived, **contents(root, "data")} == before


def test_a_rerun_finishes_whatever_an_earlier_run_left(tmp_path: Path) -> None:
    repo, root = make_archive_repo(tmp_path)
    _instances(root)
    before = contents(root, "data")
    archive = root / "archive/data/clicks"
    # 00: copied and published, the source not removed yet; 01: half removed from the feed after its copy;
    # 02: a staging copy cut short (a file short, one missing); 03: nothing done yet.
    (archive / "2025/12/31").mkdir(parents=True)
    for hour in ("00", "01"):
        FS.copy(f"file://{root}/data/clicks/2025/12/31/{hour}", f"file://{archive}/2025/12/31/{hour}")
    (root / "data/clicks/2025/12/31/01/_SUCCESS").unlink()
    (root / "data/clicks/2025/12/31/01/nested/part-1.bin").unlink()
    before.pop("clicks/2025/12/31/01/_SUCCESS"), before.pop("clicks/2025/12/31/01/nested/part-1.bin")
    staging = archive / "2025/12/31/.02.archiving"
    (staging / "nested").mkdir(parents=True)
    (staging / "nested/part-1.bin").write_bytes(b"\0" * 10)
    result = run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(FS))
    assert result.refused == [] and len(result.evicted) == 34
    assert {**contents(root, "archive/data"), **contents(root, "data")} == {
        **before, "clicks/2025/12/31/01/_SUCCESS": b"", "clicks/2025/12/31/01/nested/part-1.bin": bytes(range(256)) * 2}
    assert not staging.exists()


def test_an_archive_that_differs_keeps_the_source(tmp_path: Path) -> None:
    repo, root = make_archive_repo(tmp_path)
    _instances(root)
    before = contents(root, "data")
    other = root / "archive/data/clicks/2025/12/31/05"
    other.mkdir(parents=True)
    (other / "part-00000.json").write_text("someone else's\n")
    result = run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(FS))
    assert [item.path for item in result.refused] == [f"file://{root}/data/clicks/2025/12/31/05"]
    assert "differs" in result.refused[0].reason
    assert contents(root, "data/clicks/2025/12/31/05") == {
        k.split("/05/", 1)[1]: v for k, v in before.items() if k.startswith("clicks/2025/12/31/05/")}
    assert (other / "part-00000.json").read_text() == "someone else's\n"
    assert len(result.evicted) == 33


@pytest.mark.parametrize("action", ["chown", "chmod"])
def test_chown_and_chmod_are_refused_before_anything_is_touched(tmp_path: Path, action: str,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    repo, root = make_archive_repo(tmp_path, action=action)
    _instances(root)
    before = contents(root)
    with pytest.raises(UsageError, match=f"retention action '{action}' of feed 'clicks' on cluster 'primary'"):
        run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(FS))
    monkeypatch.setattr(sys, "argv", ["retention", "--repo", str(repo), "--feed", "clicks", "--cluster", "primary",
                                      "--time", "2026-04-01T10:00Z"])
    assert retention_entry.main() == 2  # before Spark starts
    err = capsys.readouterr().err
    assert f"retention action '{action}'" in err and "Traceback" not in err
    assert contents(root) == before  # byte-identical: no action but delete removes a byte


def test_archive_without_an_archive_location_is_refused(tmp_path: Path) -> None:
    repo, root = make_archive_repo(tmp_path, archive=None)
    _instances(root)
    before = contents(root)
    with pytest.raises(UsageError, match="no archive location: add locations.archive to cluster 'primary'"):
        run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(FS))
    assert contents(root) == before


def test_archive_at_the_cluster_root_is_refused(tmp_path: Path) -> None:
    repo, root = make_archive_repo(tmp_path, archive="/")
    _instances(root)
    before = contents(root)
    with pytest.raises(UsageError, match="archive location"):
        run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(FS))
    assert contents(root) == before


def test_an_archive_on_an_object_store_is_refused(tmp_path: Path) -> None:
    repo, root = make_archive_repo(tmp_path, archive=None)
    feed = repo / "feeds" / "clicks.yaml"
    feed.write_text(feed.read_text() + "properties:\n  retention.archive: s3a://cold-bucket/clicks\n")
    _instances(root)
    before = contents(root)
    refused = "archive location of feed 'clicks' on cluster 'primary' 's3a://cold-bucket/clicks' is on Amazon S3"
    with pytest.raises(UsageError, match=refused):
        run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(FS))
    assert contents(root) == before


@pytest.mark.parametrize("action", [name for name in retention_actions() if name != "delete"])
def test_no_action_but_delete_removes_a_byte(tmp_path: Path, action: str) -> None:
    repo, root = make_archive_repo(tmp_path, action=action)
    _instances(root)
    before = contents(root, "data")
    with contextlib.suppress(UsageError):  # chown, chmod: refused before anything was touched
        run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(FS))
    everywhere = contents(root)  # where an action may have moved them: archive/data/..., or its own folder
    kept = {(path.split("data/", 1)[1], content) for path, content in everywhere.items() if "data/" in path}
    assert [path for path, content in before.items() if (path, content) not in kept] == []


def test_archiving_a_table_is_refused_before_the_metastore_is_asked(tmp_path: Path) -> None:
    repo, _ = make_archive_repo(tmp_path)
    visits = repo / "feeds" / "visits.yaml"
    visits.write_text(visits.read_text().replace("action: delete", "action: archive"))
    with pytest.raises(UsageError, match="retention of feed 'visits' on cluster 'primary' archives a catalog table"):
        run_retention(ConfigRepo.load(repo), "visits", "primary", NOMINAL,
                      RunContext(FS))  # no catalog given: not reached


@pytest.mark.parametrize("trial", range(3))
def test_two_archiving_retentions_at_once_move_every_byte_once(tmp_path: Path, trial: int) -> None:
    """The retention lease holds for archive too: one run moves the instances, the other is refused naming it
    or finds nothing left; every byte is once in the feed or the archive, no staging copy is left."""
    repo, root = make_archive_repo(tmp_path)
    _instances(root)
    before = contents(root, "data")
    start, outcomes = threading.Barrier(2), {}

    def retain(run_id: str) -> None:
        start.wait()
        try:
            outcomes[run_id] = run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL,
                                             RunContext(LocalFileSystem(), run_id=run_id))
        except BlockedError as err:
            outcomes[run_id] = err

    runs = [threading.Thread(target=retain, args=(run_id,)) for run_id in ("r1", "r2")]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    archived, left = contents(root, "archive/data"), contents(root, "data")
    assert {**archived, **left} == before and not archived.keys() & left.keys()
    assert len(archived) == 34 * 2 + 24 and not [p for p in archived if STAGING_SUFFIX in p]
    moved = [o for o in outcomes.values() if not isinstance(o, BlockedError) and o.evicted]
    assert len(moved) == 1 and len(moved[0].evicted) == 34, outcomes
    assert all(isinstance(o, BlockedError) and "is being run by run r" in str(o) or not o.evicted
               for o in outcomes.values() if o is not moved[0])


def test_archive_leaves_a_link_and_never_archives_its_target(tmp_path: Path) -> None:
    repo, root = make_archive_repo(tmp_path)
    _instances(root)
    outside = tmp_path / "outside"
    (outside / "01" / "00").mkdir(parents=True)
    (outside / "01" / "00" / "precious.json").write_text("keep\n")
    os.symlink(outside, root / "data/clicks/2025/11")  # a month folder that is a link to elsewhere
    result = run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(FS))
    assert (outside / "01" / "00" / "precious.json").read_text() == "keep\n"
    assert os.path.islink(root / "data/clicks/2025/11")
    assert not (root / "archive/data/clicks/2025/11").exists()
    assert result.links_left == [f"file://{root}/data/clicks/2025/11"] and len(result.evicted) == 34


def test_an_archive_that_leads_back_into_the_feed_through_a_link_deletes_nothing(tmp_path: Path) -> None:
    """`/archive` is a symbolic link to the cluster root: each archive path is the instance itself. The copy would
    "verify" against itself and the source be deleted with no copy anywhere; instead every instance stays, refused
    with the reason."""
    repo, root = make_archive_repo(tmp_path)
    _instances(root)
    os.symlink(root, root / "archive")
    before = contents(root, "data")
    result = run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(FS, "r1"))
    assert contents(root, "data") == before
    assert result.evicted == [] and len(result.refused) == 24 + 10
    assert "is the instance itself" in result.refused[0].reason
    assert not [p for p in (root / "data/clicks/2025/12/31").rglob(".toolkit-*")]  # no probe left behind
