"""The bulk copier in the session's JVM, between two local roots (two "clusters"): contents, mtimes,
permissions and CRC32C against Python's own reading; failures per file; one JVM call per batch; and the
same through Hadoop's RawLocalFileSystem, the code path every other scheme takes."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tests.crc32c import crc32c
from tests.integration.jvm_calls import counted_jvm_calls
from toolkit.core.storage.bulk_copy import BulkCopier, CopyResult, CopyTask, raise_for_failures
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.local import to_uri


# ----------------------------------------------------------------------------------------------- helpers
def test_the_reference_crc32c_is_the_castagnoli_one() -> None:
    assert crc32c(b"123456789") == "e3069283"  # the standard check value
    assert crc32c(b"") == "00000000"


def mtime_ms(path: Path) -> int:
    return path.stat().st_mtime_ns // 1_000_000


def task(source: Path, target: Path) -> CopyTask:
    return CopyTask(to_uri(str(source)), to_uri(str(target)), source.stat().st_size, mtime_ms(source))


def tasks_for_tree(source_root: Path, target_root: Path) -> list[CopyTask]:
    return [task(path, target_root / path.relative_to(source_root))
            for path in sorted(source_root.rglob("*")) if path.is_file()]


@pytest.fixture(scope="module")
def copier(spark) -> BulkCopier:
    return BulkCopier(spark, threads=4)


@pytest.fixture(scope="module")
def hadoop_copier(spark) -> BulkCopier:
    return BulkCopier(spark, threads=3, buffer_size=64 * 1024, local_by_nio=False)


def make_tree(root: Path) -> dict[str, bytes]:
    """Files of awkward sizes (empty, one byte, across the buffer's edge, several buffers) in nested folders,
    with distinct old mtimes (milliseconds included) and modes."""
    contents = {
        "data/clicks/2026/11/21/10/part-00000": os.urandom((1 << 20) + 7),
        "data/clicks/2026/11/21/10/_SUCCESS": b"",
        "data/clicks/2026/11/21/11/part-00000": os.urandom(200_003),
        "data/clicks/2026/11/21/11/part-00001": os.urandom(65_536),
        "data/clicks/2026/11/21/11/one": b"x",
        "data/clicks/2026/11/22/00/deep/er/still/part.gz": os.urandom(8191),
        "names with spaces/ünïcode – ok.txt": "héllo".encode(),
    }
    for index, (name, data) in enumerate(sorted(contents.items())):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        seconds = 1_700_000_000 + 3_600 * index
        os.utime(path, ns=(seconds * 10**9, seconds * 10**9 + (index + 1) * 1_234_567))  # .001234567 s ...
        path.chmod((0o640, 0o600, 0o644, 0o755)[index % 4])
    return contents


def assert_copied(results: list[CopyResult], tasks: list[CopyTask], source_root: Path, target_root: Path,
                  permissions: bool = True) -> None:
    assert [result.task for result in results] == tasks
    for result in results:
        assert result.ok, result.error
        source = Path(result.task.source.removeprefix("file://"))
        target = Path(result.task.target.removeprefix("file://"))
        data = source.read_bytes()
        assert target.read_bytes() == data
        assert result.bytes == len(data)
        assert result.crc32c == crc32c(data)
        assert mtime_ms(target) == mtime_ms(source)
        if permissions:
            assert stat.S_IMODE(target.stat().st_mode) == stat.S_IMODE(source.stat().st_mode)
    copied = sorted(p.relative_to(target_root) for p in target_root.rglob("*") if p.is_file())
    assert copied == sorted(p.relative_to(source_root) for p in source_root.rglob("*") if p.is_file())


# ----------------------------------------------------------------------------------------------- copies
@pytest.mark.parametrize("which", ["nio", "hadoop"])
def test_a_nested_tree_is_copied_byte_for_byte_with_mtimes_modes_and_crc32c(
        request, which: str, roots: tuple[Path, Path]) -> None:
    primary, backup = roots
    make_tree(primary)
    tasks = tasks_for_tree(primary, backup)
    copier = request.getfixturevalue("copier" if which == "nio" else "hadoop_copier")
    results = copier.copy(tasks)
    assert_copied(results, tasks, primary, backup)
    raise_for_failures(results)  # nothing failed: no error
    assert not list(backup.rglob("*.crc"))  # Hadoop's raw local file system: no checksum side files


def test_without_preserve_permission_targets_get_the_default_mode(copier: BulkCopier,
                                                                   roots: tuple[Path, Path]) -> None:
    primary, backup = roots
    (primary / "secret").write_bytes(b"s")
    (primary / "secret").chmod(0o600)
    results = copier.copy([task(primary / "secret", backup / "secret")], preserve_permission=False)
    assert results[0].ok, results[0].error
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((backup / "secret").stat().st_mode) == 0o666 & ~umask


def test_an_existing_target_is_replaced_not_appended_even_when_read_only(copier: BulkCopier,
                                                                         roots: tuple[Path, Path]) -> None:
    primary, backup = roots
    (primary / "f").write_bytes(b"new and short")
    (backup / "f").write_bytes(b"an older, longer and read-only version of the file")
    (backup / "f").chmod(0o444)
    tasks = [task(primary / "f", backup / "f")]
    assert_copied(copier.copy(tasks), tasks, primary, backup)


def test_no_tasks_make_no_jvm_call(spark, copier: BulkCopier) -> None:
    with counted_jvm_calls(spark) as sent:
        assert copier.copy([]) == []
        assert copier.checksums([]) == {}
    assert sent == []


def test_thousands_of_small_files_go_in_one_jvm_call(spark, copier: BulkCopier, roots: tuple[Path, Path]) -> None:
    primary, backup = roots
    for folder in range(6):
        (primary / f"d{folder}").mkdir()
        for index in range(500):
            (primary / f"d{folder}" / f"part-{index:05d}").write_bytes(os.urandom(index % 97) + b"%d" % index)
    tasks = tasks_for_tree(primary, backup)
    assert len(tasks) == 3000
    with counted_jvm_calls(spark) as sent:
        results = copier.copy(tasks)
    assert len(sent) == 1
    assert_copied(results, tasks, primary, backup)


# ----------------------------------------------------------------------------------------------- failures
def test_a_missing_source_fails_alone(copier: BulkCopier, roots: tuple[Path, Path]) -> None:
    primary, backup = roots
    for name in ("a", "b", "c"):
        (primary / name).write_bytes(name.encode() * 10)
    tasks = [task(primary / name, backup / name) for name in ("a", "b", "c")]
    (primary / "b").unlink()
    results = copier.copy(tasks)
    assert [result.ok for result in results] == [True, False, True]
    assert "NoSuchFileException" in (results[1].error or "") and "primary/b" in (results[1].error or "")
    assert (results[1].bytes, results[1].crc32c) == (0, "")
    assert sorted(p.name for p in backup.iterdir()) == ["a", "c"]
    assert (backup / "c").read_bytes() == b"c" * 10
    with pytest.raises(StorageError, match=r"Cannot copy file:///.*/primary/b to file:///.*/backup/b: no such file "
                                           r"or directory .*\(1 of 3 files failed\)"):
        raise_for_failures(results)


@pytest.mark.parametrize("which", ["nio", "hadoop"])
def test_a_source_changed_since_the_listing_fails_and_leaves_no_target(request, which: str,
                                                                       roots: tuple[Path, Path]) -> None:
    primary, backup = roots
    (primary / "grew").write_bytes(b"0123456789")
    (primary / "touched").write_bytes(b"abc")
    (primary / "fine").write_bytes(b"ok")
    listed = [task(primary / name, backup / name) for name in ("grew", "touched", "fine")]
    (primary / "grew").write_bytes(b"0123456789 and more")
    os.utime(primary / "grew", ns=(0, listed[0].modification_time * 1_000_000))  # the same mtime, a new length
    os.utime(primary / "touched", ns=(0, (listed[1].modification_time + 5_000) * 1_000_000))
    copier = request.getfixturevalue("copier" if which == "nio" else "hadoop_copier")
    results = copier.copy(listed)
    assert [result.ok for result in results] == [False, False, True]
    assert results[0].error == (f"the source changed since it was listed: its length is 19 and its modification "
                                f"time {listed[0].modification_time}, the listing said 10 and "
                                f"{listed[0].modification_time}")
    assert "the source changed since it was listed" in (results[1].error or "")
    assert sorted(p.name for p in backup.iterdir()) == ["fine"]


def test_a_target_in_a_read_only_folder_fails(copier: BulkCopier, roots: tuple[Path, Path]) -> None:
    primary, backup = roots
    (primary / "a").write_bytes(b"a")
    (primary / "b").write_bytes(b"b")
    locked = backup / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    immutable = os.geteuid() == 0  # root writes into read-only folders: make it immutable instead
    if immutable and (shutil.which("chattr") is None
                      or subprocess.run(["chattr", "+i", str(locked)], capture_output=True).returncode != 0):
        pytest.skip("running as root without chattr +i: a folder cannot be made read-only for this process")
    try:
        results = copier.copy([task(primary / "a", locked / "a"), task(primary / "b", backup / "b")])
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(locked)], check=True)
        locked.chmod(0o755)
    assert not results[0].ok and results[1].ok
    refusal = "Operation not permitted" if immutable else "AccessDeniedException"  # EPERM or EACCES
    assert refusal in (results[0].error or "") and "backup/locked/a" in (results[0].error or "")
    assert list(locked.iterdir()) == []
    with pytest.raises(StorageError, match=r"/backup/locked/a: (permission denied|the file system refused it) .*"
                                           r"\(1 of 2 files failed\)"):
        raise_for_failures(results)


def test_directories_in_the_way_fail(copier: BulkCopier, roots: tuple[Path, Path]) -> None:
    primary, backup = roots
    (primary / "folder").mkdir()
    (primary / "file").write_bytes(b"f")
    (backup / "file").mkdir()  # a folder where the target file belongs
    (backup / "file" / "keep").write_bytes(b"k")
    (primary / "blocked").write_bytes(b"b")
    (backup / "plain").write_bytes(b"a file where a folder belongs")
    results = copier.copy([
        CopyTask(to_uri(str(primary / "folder")), to_uri(str(backup / "folder")), 0, mtime_ms(primary / "folder")),
        task(primary / "file", backup / "file"),
        task(primary / "blocked", backup / "plain" / "blocked"),
    ])
    assert [result.error for result in results[:2]] == ["the source is a directory", "the target is a directory"]
    assert results[2].error == f"a parent of the target is a file: {backup / 'plain'}"
    assert (backup / "file" / "keep").read_bytes() == b"k"
    assert (backup / "plain").read_bytes() == b"a file where a folder belongs"
    assert not (backup / "folder").exists()


def test_a_file_copied_onto_itself_is_refused_without_touching_it(spark, copier: BulkCopier, tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"precious")
    with counted_jvm_calls(spark) as sent:
        results = copier.copy([task(tmp_path / "f", tmp_path / "f")])
    assert sent == []
    assert results[0].error == "the source and the target are the same file"
    assert (tmp_path / "f").read_bytes() == b"precious"


def test_paths_that_are_no_full_uris_are_refused(copier: BulkCopier, tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="is not a full URI"):
        copier.copy([CopyTask(str(tmp_path / "a"), to_uri(str(tmp_path / "b")), 0, 0)])
    with pytest.raises(StorageError, match="is not a full URI"):
        copier.checksums(["relative/path"])


# ----------------------------------------------------------------------------------------------- checksums
@pytest.mark.parametrize("which", ["nio", "hadoop"])
def test_checksums_of_existing_files_in_bulk(request, which: str, tmp_path: Path) -> None:
    contents = make_tree(tmp_path)
    paths = [to_uri(str(tmp_path / name)) for name in sorted(contents)]
    copier = request.getfixturevalue("copier" if which == "nio" else "hadoop_copier")
    assert copier.checksums(paths) == {path: crc32c(contents[name])
                                       for path, name in zip(paths, sorted(contents), strict=True)}


def test_checksums_name_the_first_unreadable_file_and_the_count(copier: BulkCopier, tmp_path: Path) -> None:
    (tmp_path / "here").write_bytes(b"h")
    paths = [to_uri(str(tmp_path / name)) for name in ("here", "gone", "also-gone")]
    with pytest.raises(StorageError, match=r"Cannot checksum file:///.*/gone: no such file or directory .*\(2 of 3 "
                                           r"files could not be read\)"):
        copier.checksums(paths)


def test_the_crc32c_equals_javas_over_a_separately_read_file(spark, copier: BulkCopier, tmp_path: Path) -> None:
    data = os.urandom((1 << 20) + 3)
    (tmp_path / "f").write_bytes(data)
    java_crc = spark._jvm.java.util.zip.CRC32C()
    java_crc.update(bytearray(data))
    assert copier.checksums([to_uri(str(tmp_path / "f"))])[to_uri(str(tmp_path / "f"))] == \
        f"{java_crc.getValue():08x}" == crc32c(data)
