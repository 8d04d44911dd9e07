"""What is particular to `HadoopFileSystem` beyond the shared contract: the raw local file system (no `.crc`
side files), the batch listing and its cost in JVM calls, names that look like Hadoop's rendering of a status,
checksum formatting, error sentences, and an import that stays light."""

from __future__ import annotations

import hashlib
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.jvm_calls import counted_jvm_calls
from toolkit.core.storage.filesystem import FileStatus, StorageError
from toolkit.core.storage.local import LocalFileSystem, to_uri


@pytest.fixture(scope="module")
def hadoop_fs(spark):
    from toolkit.core.storage.hadoop import HadoopFileSystem

    return HadoopFileSystem(spark)


def uri(path: Path) -> str:
    return to_uri(str(path))


def test_local_files_get_no_crc_side_files_but_others_crc_files_show(spark, hadoop_fs, tmp_path: Path) -> None:
    """file:// is RawLocalFileSystem: what we write is all there is; `.crc` files that Spark's checksummed
    local file system leaves are plain files to both implementations."""
    hadoop_fs.write_atomically(uri(tmp_path / "ours"), b"o")
    hadoop_fs.create_exclusive(uri(tmp_path / "lock"), b"l")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lock", "ours"]
    jvm = spark._jvm
    path = jvm.org.apache.hadoop.fs.Path(uri(tmp_path / "spark-written"))
    checksummed = path.getFileSystem(spark._jsc.hadoopConfiguration())
    stream = checksummed.create(path, False)
    stream.write(bytearray(b"s"))
    stream.close()
    names = [".spark-written.crc", "lock", "ours", "spark-written"]
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    assert [s.name for s in hadoop_fs.list(uri(tmp_path))] == names
    assert hadoop_fs.list(uri(tmp_path)) == LocalFileSystem().list(uri(tmp_path))


def test_list_many_answers_a_level_in_a_few_jvm_calls(spark, hadoop_fs, tmp_path: Path) -> None:
    days = [tmp_path / f"2026/{month:02d}/{day:02d}" for month in (1, 2) for day in range(1, 29)]
    for day in days:
        for hour in (0, 13):
            (day / f"{hour:02d}").mkdir(parents=True)
        (day / "_SUCCESS").write_bytes(b"")
    folders = [uri(day) for day in days]
    hadoop_fs.list_many(folders[:2])  # warm: the FileSystem object is cached after this
    with counted_jvm_calls(spark) as sent:
        listed = hadoop_fs.list_many(folders)
    assert 1 <= len(sent) <= 6, sent  # a loop of list() would send at least 4 per folder: 224
    local = LocalFileSystem()
    assert listed == {folder: local.list(folder) for folder in folders}
    assert all([s.name for s in children] == ["00", "13", "_SUCCESS"] for children in listed.values())


def test_list_many_falls_back_when_a_path_is_gone(spark, hadoop_fs, tmp_path: Path) -> None:
    (tmp_path / "a/x").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    folders = [uri(tmp_path / "a"), uri(tmp_path / "gone"), uri(tmp_path / "b")]
    assert hadoop_fs.list_many(folders) == {folders[0]: [hadoop_fs.status(uri(tmp_path / "a/x"))],
                                            folders[1]: [], folders[2]: []}


def test_status_of_a_missing_path_throws_nothing_in_the_jvm(spark, hadoop_fs, tmp_path: Path) -> None:
    hadoop_fs.exists(uri(tmp_path))
    with counted_jvm_calls(spark) as sent:
        assert hadoop_fs.status(uri(tmp_path / "missing")) is None
        assert hadoop_fs.delete(uri(tmp_path / "missing"), recursive=True) is False
    assert 1 <= len(sent) <= 6, sent  # a Java exception alone would cost a dozen calls through pyspark


def test_names_that_look_like_rendered_fields_are_listed_right(hadoop_fs, tmp_path: Path) -> None:
    """Statuses are read by their getters, never parsed from `FileStatus.toString()`: such names stay exact."""
    names = ["x; isDirectory=true", "y{path=z; isDirectory=false; length=7", "plain"]
    for name in names:
        (tmp_path / name).write_bytes(b"12")
    (tmp_path / "d; modification_time=5;").mkdir()
    local = LocalFileSystem()
    assert hadoop_fs.list(uri(tmp_path)) == local.list(uri(tmp_path))
    assert [s.is_dir for s in hadoop_fs.list(uri(tmp_path))] == [True, False, False, False]
    assert hadoop_fs.glob(uri(tmp_path) + "/*") == local.list(uri(tmp_path))


def test_checksum_is_algorithm_and_hex_bytes(spark) -> None:
    from toolkit.core.storage.hadoop import format_checksum

    jvm = spark._jvm
    md5 = hashlib.md5(b"block checksums").digest()
    checksum = jvm.org.apache.hadoop.fs.MD5MD5CRC32CastagnoliFileChecksum(512, 4, jvm.org.apache.hadoop.io.MD5Hash(
        bytearray(md5)))
    # Hadoop's Writable form (bytesPerCRC, crcPerBlock, md5) in its 32-byte buffer, as FileChecksum.equals has it
    expected = (struct.pack(">iq", 512, 4) + md5).ljust(32, b"\0").hex()
    assert format_checksum(checksum) == f"MD5-of-4MD5-of-512CRC32C:{expected}"


def test_errors_are_one_sentence_naming_path_and_cause(hadoop_fs, tmp_path: Path) -> None:
    with pytest.raises(StorageError, match=r"^Cannot reach nosuch://host/x: no file system is configured for "
                                           r"its scheme\.$"):
        hadoop_fs.exists("nosuch://host/x")
    with pytest.raises(StorageError, match=r"^/tmp/x is not a full URI"):
        hadoop_fs.exists("/tmp/x")
    (tmp_path / "f").write_bytes(b"f")
    with pytest.raises(StorageError, match=r"^Cannot create the directory .*/f/sub: a parent is not a directory\.$"):
        hadoop_fs.mkdirs(uri(tmp_path / "f/sub"))
    with pytest.raises(StorageError, match=r"^Cannot create the directory .*/f: a file is in the way\.$"):
        hadoop_fs.mkdirs(uri(tmp_path / "f"))
    with pytest.raises(StorageError, match=r"^Cannot read .*/missing: no such file or directory\.$"):
        hadoop_fs.read(uri(tmp_path / "missing"))
    (tmp_path / "with:colon").mkdir()
    with pytest.raises(StorageError, match=r"^Cannot glob .*/\*: a name in it holds a ':', which Hadoop paths "
                                           r"cannot\.$"):
        hadoop_fs.glob(uri(tmp_path) + "/*")
    assert [s.name for s in hadoop_fs.list(uri(tmp_path))] == ["f", "with:colon"]  # listing is fine


def test_non_ascii_local_paths_need_a_utf8_jvm(spark, tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    fs = HadoopFileSystem(spark)
    fs._jnu_encoding = "ANSI_X3.4-1968"  # what a JVM started under LANG=C reports
    with pytest.raises(StorageError, match=r"encodes file names as ANSI_X3\.4-1968, not UTF-8.*LANG=C\.UTF-8"):
        fs.write_atomically(uri(tmp_path / "é"), b"x")
    assert list(tmp_path.iterdir()) == []
    fs.write_atomically(uri(tmp_path / "ascii"), b"x")
    assert fs.status(uri(tmp_path / "ascii")) == FileStatus(uri(tmp_path / "ascii"), 1,
                                                            (tmp_path / "ascii").stat().st_mtime_ns // 1_000_000,
                                                            False)


def test_importing_the_storage_modules_leaves_pyspark_out() -> None:
    code = ("import sys, toolkit.core.storage.hadoop, toolkit.core.storage.local, toolkit.core.storage.filesystem; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
