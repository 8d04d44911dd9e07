"""The distributed copy of a file feed (`replication.distributed-above-files: "0"`: a Spark job over the executors of
the test session, core/storage/jvm/DistributedCopy.java) against hostile layouts on the target and in the source: a
symbolic link on the way from the target cluster's root to the instance or in the staging folder, names with
colons and spaces, a folder where a file goes, names at the 255-byte limit of a file name. Each test asserts what is
left on disk: the exact copy, or one sentence (a StorageError, exit 1) and nothing written through a link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.integration.replication.test_distributed_replication import distributed_repo
from tests.unit.replication.test_file_replication import T, contents, instance
from toolkit.actions.replication.runner import ReplicationRequest, ReplicationResult, run_replication
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.filesystem import StorageError
from toolkit.services.runtime.run_context import RunContext

INSTANCE = "replica/clicks/2026/11/21/10"  # under the backup cluster's root
FILES = {"part-00000.json": b'{"page": "/"}\n' * 50, "nested/part-00001.json": b'{"page": "/cart"}\n' * 3}


def _replicate(spark, repo: Path) -> ReplicationResult:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    return run_replication(ConfigRepo.load(repo), "clicks", "backup", ReplicationRequest(T, T),
                           RunContext(HadoopFileSystem(spark), run_id="layouts"))


def _tree(folder: Path) -> dict[str, bytes | str]:
    """Everything below `folder`, links as `-> target` (never followed), files by content, folders left out."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            found[str(path.relative_to(folder))] = f"-> {os.readlink(path)}"
        elif path.is_file():
            found[str(path.relative_to(folder))] = path.read_bytes()
    return found


def _elsewhere(tmp_path: Path) -> Path:
    """A folder outside both clusters, holding one file of its own: what a link leads to."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "own.txt").write_bytes(b"not the toolkit's\n")
    return outside


def _copied(result: ReplicationResult) -> str | None:
    return result.instances[0].sources[0].folder.copier


@pytest.mark.parametrize("link", ["replica", "replica/clicks/2026/11", INSTANCE,
                                  "replica/clicks/2026/11/21/.10.replicating",
                                  "replica/clicks/2026/11/21/.10.replaced"],
                         ids=["feed-folder", "day-parent", "instance", "staging", "replaced"])
def test_a_link_on_the_way_to_the_target_instance_is_refused_and_nothing_is_written_through_it(
        spark, tmp_path: Path, link: str) -> None:
    repo, primary = distributed_repo(tmp_path)
    instance(primary, "data/clicks", T, FILES)
    outside = _elsewhere(tmp_path)
    planted = tmp_path / "backup" / link
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.symlink_to(outside, target_is_directory=True)
    with pytest.raises(StorageError) as refused:
        _replicate(spark, repo)
    message = str(refused.value)
    assert refused.value.exit_code == 1
    assert "symbolic link" in message and f"file://{planted}" in message, message
    assert "\n" not in message.strip()
    assert _tree(outside) == {"own.txt": b"not the toolkit's\n"}  # nothing written, renamed or deleted through it
    assert planted.is_symlink() and os.readlink(planted) == str(outside)  # the link itself is left


def test_a_link_planted_in_the_staging_folder_is_never_written_through_nor_published(spark, tmp_path: Path) -> None:
    """A staging folder left by a killed run, with a link where the copy makes a folder (`nested`) and one where it
    writes a file: the copy writes neither through them, and the published instance holds no link."""
    repo, primary = distributed_repo(tmp_path)
    source = instance(primary, "data/clicks", T, FILES)
    outside = _elsewhere(tmp_path)
    staging = tmp_path / "backup/replica/clicks/2026/11/21/.10.replicating"
    staging.mkdir(parents=True)
    (staging / "nested").symlink_to(outside, target_is_directory=True)
    (staging / "part-00000.json").symlink_to(outside / "own.txt")
    result = _replicate(spark, repo)
    assert result.status == "SUCCEEDED" and _copied(result) == "executors"
    target = tmp_path / "backup" / INSTANCE
    assert _tree(target) == {**FILES, "_SUCCESS": b""} == contents(source)
    assert _tree(outside) == {"own.txt": b"not the toolkit's\n"}
    assert not staging.exists() and not os.path.lexists(staging)


def test_names_with_colons_and_spaces_are_copied_exactly(spark, tmp_path: Path) -> None:
    repo, primary = distributed_repo(tmp_path)
    files = {"ts=2026-11-21T10:00:00Z.json": b"colon\n", "with space.json": b"space\n",
             "a folder: with both/x y:z.json": b"both\n", "%20 and %3A.json": b"escapes\n"}
    source = instance(primary, "data/clicks", T, files)
    result = _replicate(spark, repo)
    assert result.status == "SUCCEEDED" and _copied(result) == "executors"
    target = tmp_path / "backup" / INSTANCE
    assert _tree(target) == contents(source) == {**files, "_SUCCESS": b""}
    assert _replicate(spark, repo).counters()["files_copied"] == 0  # the rerun finds every name as copied


def test_a_folder_where_a_file_goes_is_replaced_by_the_file(spark, tmp_path: Path) -> None:
    """In the staging folder a killed run left (its own folder: emptied and replaced) and in the published instance
    (replaced as a whole by the swap): the copy is exact, no half copy and no staging left."""
    repo, primary = distributed_repo(tmp_path)
    source = instance(primary, "data/clicks", T, FILES)
    staging = tmp_path / "backup/replica/clicks/2026/11/21/.10.replicating"
    (staging / "part-00000.json").mkdir(parents=True)
    (staging / "part-00000.json/left.txt").write_bytes(b"left by a killed run\n")
    result = _replicate(spark, repo)
    target = tmp_path / "backup" / INSTANCE
    assert result.status == "SUCCEEDED", result.reasons()
    assert _tree(target) == contents(source)
    assert not staging.exists()
    # Now a folder at a file's name in the published instance, the source changed: the swap replaces it all.
    (source / "part-00000.json").write_bytes(b"changed\n")
    (target / "nested/part-00001.json").unlink()
    (target / "nested/part-00001.json").mkdir()
    again = _replicate(spark, repo)
    assert again.status == "SUCCEEDED" and again.counters()["instances_published"] == 1
    assert _tree(target) == contents(source)
    assert sorted(p.name for p in target.parent.iterdir()) == ["10"]


def _published(source: Path, target: Path, up_to_date: bool) -> None:
    """The source's data files at the target, with the source's mtimes (up to date) or older ones (changed)."""
    for name, data in FILES.items():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (target / name).write_bytes(data)
        stamp = os.stat(source / name).st_mtime_ns // 1_000_000 * 1_000_000 - (0 if up_to_date else 60 * 10**9)
        os.utime(target / name, ns=(stamp, stamp))


def test_a_folder_where_the_availability_flag_goes_is_replaced_with_the_changed_instance(spark,
                                                                                         tmp_path: Path) -> None:
    """The published instance is older than the source and holds a folder at the flag's name: it is rebuilt in
    staging and swapped in whole, then the flag is written; the target holds exactly the source's files."""
    repo, primary = distributed_repo(tmp_path)
    source = instance(primary, "data/clicks", T, FILES)
    target = tmp_path / "backup" / INSTANCE
    _published(source, target, up_to_date=False)
    (target / "_SUCCESS").mkdir()
    (target / "_SUCCESS/left.txt").write_bytes(b"not the flag\n")
    result = _replicate(spark, repo)
    assert result.status == "SUCCEEDED", result.reasons()
    assert result.instances[0].flag_written
    assert _tree(target) == contents(source)
    assert sorted(p.name for p in target.parent.iterdir()) == ["10"]


def test_a_folder_where_the_availability_flag_goes_of_an_up_to_date_instance_is_one_sentence(
        spark, tmp_path: Path) -> None:
    """The published data is the source's but a folder is at the flag's name: nothing is copied, the flag is not
    written and the folder is not deleted; one sentence says so (exit 1)."""
    repo, primary = distributed_repo(tmp_path)
    source = instance(primary, "data/clicks", T, FILES)
    target = tmp_path / "backup" / INSTANCE
    _published(source, target, up_to_date=True)
    (target / "_SUCCESS").mkdir()
    (target / "_SUCCESS/left.txt").write_bytes(b"not the flag\n")
    with pytest.raises(StorageError) as refused:
        _replicate(spark, repo)
    message = str(refused.value)
    assert refused.value.exit_code == 1 and "\n" not in message, message
    assert f"Cannot write the availability flag file://{target}/_SUCCESS: a folder is at its name" in message
    assert _tree(target) == {**FILES, "_SUCCESS/left.txt": b"not the flag\n"}
    assert sorted(p.name for p in target.parent.iterdir()) == ["10"]


def _long_target(repo: Path, name: str) -> None:
    """The backup cluster's instance folder named `name` followed by `-HH` (the template's last segment)."""
    feed = repo / "feeds/clicks.yaml"
    feed.write_text(feed.read_text().replace("data: /replica/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}",
                                             f"data: /replica/clicks/${{YEAR}}/${{MONTH}}/${{DAY}}/{name}-${{HOUR}}"))


@pytest.mark.parametrize("length", [245, 255])
def test_an_instance_folder_name_at_the_file_name_limit_is_copied_exactly(spark, tmp_path: Path,
                                                                          length: int) -> None:
    """A target instance folder of 245 or 255 bytes (a file name's limit): its staging folder's name
    (`.<name>.replicating`) would be longer, yet the copy is exact and nothing is left beside it; a source file
    named with 255 bytes is copied too."""
    repo, primary = distributed_repo(tmp_path)
    name = "é" * ((length - 3) // 2) + "x" * ((length - 3) % 2)  # two bytes a letter: bytes, not letters, count
    _long_target(repo, name)
    folder = f"{name}-10"
    assert len(folder.encode()) == length
    files = {**FILES, "y" * 255: b"longest file name\n"}
    source = instance(primary, "data/clicks", T, files)
    result = _replicate(spark, repo)
    assert result.status == "SUCCEEDED", result.reasons()
    day = tmp_path / "backup/replica/clicks/2026/11/21"
    assert _tree(day / folder) == contents(source)
    assert [p.name for p in day.iterdir()] == [folder]  # no staging folder left beside it
    assert _replicate(spark, repo).counters()["files_copied"] == 0


def test_a_link_planted_in_the_staging_folder_during_the_copy_is_never_written_through(spark, tmp_path: Path) -> None:
    """A link appears at `nested` in the staging folder after the run checked it, right before the executors copy:
    the copy of the file below it fails on its executor (one sentence, nothing published, nothing written through
    the link), and the rerun removes the link and publishes the exact copy."""
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, primary = distributed_repo(tmp_path)
    source = instance(primary, "data/clicks", T, FILES)
    outside = _elsewhere(tmp_path)
    staging = tmp_path / "backup/replica/clicks/2026/11/21/.10.replicating"

    class PlantsALink(HadoopFileSystem):
        """Fault injection: the link is planted between the run's checks and the copy."""

        def copy_files_on_executors(self, tasks, threads=4, preserve_permission=True):
            (staging / "nested").symlink_to(outside, target_is_directory=True)
            return super().copy_files_on_executors(tasks, threads, preserve_permission)

    with pytest.raises(StorageError) as failed:
        run_replication(ConfigRepo.load(repo), "clicks", "backup", ReplicationRequest(T, T),
                        RunContext(PlantsALink(spark), run_id="layouts"))
    message = str(failed.value)
    assert "1 of 2 file(s)" in message and "symbolic link" in message and "\n" not in message, message
    assert _tree(outside) == {"own.txt": b"not the toolkit's\n"}
    target = tmp_path / "backup" / INSTANCE
    assert not target.exists()
    rerun = _replicate(spark, repo)
    assert rerun.status == "SUCCEEDED" and _copied(rerun) == "executors"
    assert _tree(target) == contents(source)
    assert _tree(outside) == {"own.txt": b"not the toolkit's\n"}
