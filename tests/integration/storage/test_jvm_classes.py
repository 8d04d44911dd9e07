"""The toolkit's Java classes (toolkit/core/storage/jvm/*.java) tested as Java: each public method called through
py4j on the classes of the jar that `make` builds, its wire format read here, its effects checked on real
files. TreeLister: listing, links, tree comparison, statuses. BulkCopy: copying across the four kinds of
source and sink (java.nio for `file:///`, Hadoop's FileSystem otherwise: `file:/x` reaches the raw local one),
verification, checksums. Also where the classes come from: the jar on `spark.jars`, or the jar file itself in
a JVM started without it, and what a toolkit without its jar says."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.crc32c import crc32c
from toolkit.core.storage.jvm_classes import JAR_NAME, jar_path, java_class, new_instance

SEP = "\0"
REPOSITORY = Path(__file__).resolve().parents[3]


def instance(spark, name: str, *arguments):
    gateway, conf = spark.sparkContext._gateway, spark._jsc.hadoopConfiguration()
    return new_instance(gateway, java_class(gateway, conf, name), conf, *arguments)


def mtime_ms(path: Path) -> int:
    return path.stat().st_mtime_ns // 1_000_000


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """t/a (3 bytes), t/d/b (5 bytes), t/d/e/ (empty folder), t/link -> t/d (a link to a folder)."""
    root = tmp_path / "t"
    (root / "d" / "e").mkdir(parents=True)
    (root / "a").write_bytes(b"abc")
    (root / "d" / "b").write_bytes(b"12345")
    (root / "link").symlink_to(root / "d")
    return root


# ----------------------------------------------------------------------------------------------- the jar
def context_loaders(gateway) -> list:
    """The calling thread's class loader and the loaders it delegates to, nearest first."""
    loaders, loader = [], gateway.jvm.java.lang.Thread.currentThread().getContextClassLoader()
    while loader is not None:
        loaders.append(loader)
        loader = loader.getParent()
    return loaders


def test_the_classes_come_from_the_toolkits_jar_on_the_class_path(spark) -> None:
    gateway, conf = spark.sparkContext._gateway, spark._jsc.hadoopConfiguration()
    for name in ("TreeLister", "BulkCopy"):
        loaded = java_class(gateway, conf, name)
        assert loaded.getName() == f"feedtoolkit.{name}"
        assert str(loaded.getProtectionDomain().getCodeSource().getLocation().getPath()).endswith(f"/{JAR_NAME}")
        # from spark.jars, not a class loader of our own: the thread's class loader or one it delegates to (a
        # session that ran ADD JAR, as a database import does, puts a child loader in front of it)
        assert loaded.getClassLoader() in context_loaders(gateway)


@pytest.mark.jvm
def test_a_jvm_started_without_the_jar_loads_the_classes_from_the_jar_file(tmp_path: Path) -> None:
    (tmp_path / "t" / "d").mkdir(parents=True)
    (tmp_path / "t" / "d" / "f").write_bytes(b"xy")
    script = (
        "import sys\n"
        "from pyspark.sql import SparkSession\n"
        "from toolkit.core.storage.hadoop import HadoopFileSystem\n"
        "spark = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false').getOrCreate()\n"
        "fs = HadoopFileSystem(spark)\n"
        "print([(s.path, s.length) for s in fs.list_files(sys.argv[1])])\n"
        "print([s.name for s in fs.list(sys.argv[1])])\n"
        "spark.stop()\n")
    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY), "SPARK_LOCAL_IP": "127.0.0.1"}
    environment.pop("PYSPARK_SUBMIT_ARGS", None)
    done = subprocess.run([sys.executable, "-c", script, f"file://{tmp_path}/t"], capture_output=True, text=True,
                          env=environment, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [f"[('file://{tmp_path}/t/d/f', 2)]", "['d']"]


def test_a_toolkit_without_its_jar_says_how_to_build_it_and_exits_2(tmp_path: Path) -> None:
    """Installed without building (no jar beside the sources): one sentence, exit 2, before Spark starts (the
    retention of a table feed, which needs Spark: a file feed's needs no JVM and no jar)."""
    shutil.copytree(REPOSITORY / "toolkit", tmp_path / "toolkit", ignore=shutil.ignore_patterns("*.jar", "__pycache__"))
    environment = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(REPOSITORY / "entrypoints" / "retention.py"), "--repo",
         str(REPOSITORY / "config_repo_template"), "--feed", "clicks-daily-table", "--cluster", "primary", "--time",
         "2026-03-31T10:00Z", "--dry-run"], capture_output=True, text=True, env=environment, timeout=120,
        check=False)
    missing = tmp_path / "toolkit" / "core" / "storage" / "jvm" / JAR_NAME
    assert done.returncode == 2, done.stderr
    assert done.stderr == (f"retention: The toolkit's Java classes are not built ({missing} is missing): run "
                           f"`make install` in the feed-toolkit source tree (it compiles "
                           f"toolkit/core/storage/jvm/*.java with javac).\n")
    assert jar_path().endswith(f"toolkit/core/storage/jvm/{JAR_NAME}")  # this checkout's jar is there


# ----------------------------------------------------------------------------------------------- TreeLister
def records(answer: str, width: int) -> list[list[str]]:
    fields = answer.split(SEP)
    assert fields[-1] == ""  # every field is NUL-ended
    return [fields[k:k + width] for k in range(0, len(fields) - 1, width)]


@pytest.mark.parametrize("by_nio", [True, False], ids=["java.nio", "hadoop"])
def test_list_answers_every_file_and_link_of_the_tree_once(spark, tree: Path, by_nio: bool) -> None:
    answer = str(instance(spark, "TreeLister", by_nio).list(f"file://{tree}"))
    assert answer[0] == "D"
    listed = sorted(records(answer[1:], 4))
    # java.nio reads the link's own mtime; Hadoop's raw local file system stats through it (its folder's)
    link = (tree / "link").lstat() if by_nio else (tree / "d").stat()
    assert listed == [["a", "3", str(mtime_ms(tree / "a")), "f"],
                      ["d/b", "5", str(mtime_ms(tree / "d/b")), "f"],
                      ["link", "0", str(link.st_mtime_ns // 1_000_000), "l"]]


@pytest.mark.parametrize("by_nio", [True, False], ids=["java.nio", "hadoop"])
def test_list_of_a_missing_path_a_file_and_a_link(spark, tree: Path, by_nio: bool) -> None:
    lister = instance(spark, "TreeLister", by_nio)
    assert str(lister.list(f"file://{tree}/missing")) == ""
    assert str(lister.list(f"file://{tree}/a")) == "F"
    assert str(lister.list(f"file://{tree}/link")) == "L"
    assert str(lister.list(f"file://{tree}/d/e")) == "D"


def test_links_answers_only_the_symbolic_links(spark, tree: Path) -> None:
    lister = instance(spark, "TreeLister", True)
    asked = [f"file://{tree}/a", f"file://{tree}/link", f"file://{tree}/d", f"file://{tree}/missing"]
    assert str(lister.links(SEP.join(asked))) == f"file://{tree}/link{SEP}"
    assert str(lister.links(f"file://{tree}/a")) == ""


@pytest.mark.parametrize("by_nio", [True, False], ids=["java.nio", "hadoop"])
def test_same_files_counts_equal_trees_and_answers_minus_one_otherwise(spark, tree: Path, tmp_path: Path,
                                                                       by_nio: bool) -> None:
    lister = instance(spark, "TreeLister", by_nio)
    copy = tmp_path / "copy"
    shutil.copytree(tree, copy, symlinks=True)  # copy2: same lengths and mtimes
    (tree / "_SUCCESS").write_bytes(b"")
    (copy / "d" / "part.tmp").write_bytes(b"partial")
    (copy / ".hidden").write_bytes(b"h")
    source, target = f"file://{tree}", f"file://{copy}"
    assert lister.sameFiles(source, target, "_SUCCESS", ".", ".tmp") == 2  # a and d/b; links left out
    assert lister.sameFiles(source, target, "", "", "") == -1
    assert lister.sameFiles(source, target, "_SUCCESS", "", ".tmp") == -1  # .hidden counts then
    os.utime(copy / "a", ns=(0, 1_000_000))
    assert lister.sameFiles(source, target, "_SUCCESS", ".", ".tmp") == -1
    assert lister.sameFiles(source, f"file://{tmp_path}/missing", "", "", "") == -1


def test_statuses_reads_each_status_by_its_getters(spark, tree: Path) -> None:
    """What HadoopFileSystem lists with: path, kind, length (0 but for a file), mtime per status."""
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    raw = jvm.org.apache.hadoop.fs.RawLocalFileSystem()
    raw.initialize(jvm.java.net.URI.create("file:///"), conf)
    lister = instance(spark, "TreeLister", True)
    tricky = tree / "d" / "x; isDirectory=true; length=7"  # what FileStatus.toString() would render
    tricky.write_bytes(b"1")
    answer = str(lister.statuses(raw.listStatus(jvm.org.apache.hadoop.fs.Path(f"file://{tree}/d"))))
    assert sorted(records(answer, 4)) == [
        [f"file:{tree}/d/b", "f", "5", str(mtime_ms(tree / "d/b"))],
        [f"file:{tree}/d/e", "d", "0", str(mtime_ms(tree / "d/e"))],
        [f"file:{tricky}", "f", "1", str(mtime_ms(tricky))],
    ]


def test_look_up_renders_one_status_marks_links_and_answers_nothing_for_a_missing_path(spark, tree: Path) -> None:
    """HadoopFileSystem.status in one call: a file, a folder, a link to a folder (Hadoop's raw status follows it; it
    is a link, length 0), a dangling link and a missing path (nothing); exists alike."""
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    raw = jvm.org.apache.hadoop.fs.RawLocalFileSystem()
    raw.initialize(jvm.java.net.URI.create("file:///"), conf)
    lister = instance(spark, "TreeLister", True)
    (tree / "dangling").symlink_to(tree / "nowhere")
    assert records(str(lister.lookUp(raw, f"file://{tree}/a")), 4) == [
        [f"file:{tree}/a", "f", "3", str(mtime_ms(tree / "a"))]]
    assert records(str(lister.lookUp(raw, f"file://{tree}/d/e")), 4) == [
        [f"file:{tree}/d/e", "d", "0", str(mtime_ms(tree / "d/e"))]]
    assert records(str(lister.lookUp(raw, f"file://{tree}/link")), 4) == [
        [f"file:{tree}/link", "l", "0", str(mtime_ms(tree / "d"))]]
    assert [str(lister.lookUp(raw, f"file://{tree}/{name}")) for name in ("dangling", "missing", "a/below")] == [
        "", "", ""]
    assert [lister.exists(raw, f"file://{tree}/{name}") for name in ("a", "link", "dangling", "missing")] == [
        True, True, False, False]


def test_listing_marks_links_and_tells_a_link_or_a_file_from_a_folder(spark, tree: Path) -> None:
    """HadoopFileSystem.list in one call: the children with the link as kind "l", "L" for a link to a folder (never
    followed), "F" for a file, Hadoop's FileNotFoundException for a missing path."""
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    raw = jvm.org.apache.hadoop.fs.RawLocalFileSystem()
    raw.initialize(jvm.java.net.URI.create("file:///"), conf)
    lister = instance(spark, "TreeLister", True)
    answer = str(lister.listing(raw, f"file://{tree}"))
    assert answer[0] == "D"
    assert sorted(records(answer[1:], 4)) == [
        [f"file:{tree}/a", "f", "3", str(mtime_ms(tree / "a"))],
        [f"file:{tree}/d", "d", "0", str(mtime_ms(tree / "d"))],
        [f"file:{tree}/link", "l", "0", str(mtime_ms(tree / "d"))],
    ]
    assert [str(lister.listing(raw, f"file://{tree}/{name}")) for name in ("link", "a", "d/e")] == ["L", "F", "D"]
    with pytest.raises(Exception, match="FileNotFoundException"):
        lister.listing(raw, f"file://{tree}/missing")


# ----------------------------------------------------------------------------------------------- BulkCopy
# `file:///x` is copied through java.nio; `file:/x`, the same file, through Hadoop's raw local file system.
KINDS = {"nio": "file://{}", "hadoop": "file:{}"}


def copy_answer(copier, source: Path, target: Path, source_kind: str, target_kind: str, *, length: int | None = None,
                preserve: bool = True) -> list[str]:
    fields = [KINDS[source_kind].format(source), KINDS[target_kind].format(target),
              str(source.stat().st_size if length is None else length), str(mtime_ms(source))]
    answer = str(copier.copy(SEP.join(fields), preserve))
    return answer.split(SEP)


@pytest.mark.parametrize("source_kind", ["nio", "hadoop"])
@pytest.mark.parametrize("target_kind", ["nio", "hadoop"])
def test_copy_from_each_kind_of_source_to_each_kind_of_sink(spark, tmp_path: Path, source_kind: str,
                                                            target_kind: str) -> None:
    copier = instance(spark, "BulkCopy", 2, 4096, True)  # buffers of 4 KiB: many chunks
    data = bytes(range(256)) * 100 + b"tail"
    source = tmp_path / "in" / "f"
    source.parent.mkdir()
    source.write_bytes(data)
    source.chmod(0o640)
    os.utime(source, ns=(1_700_000_000_000_000_000, 1_700_000_000_123_000_000))
    target = tmp_path / "out" / "deep" / "f"
    assert copy_answer(copier, source, target, source_kind, target_kind) == [str(len(data)), crc32c(data), ""]
    assert target.read_bytes() == data
    assert mtime_ms(target) == 1_700_000_000_123
    assert target.stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize("source_kind", ["nio", "hadoop"])
@pytest.mark.parametrize("target_kind", ["nio", "hadoop"])
def test_a_copy_that_fails_verification_leaves_no_target(spark, tmp_path: Path, source_kind: str,
                                                         target_kind: str) -> None:
    copier = instance(spark, "BulkCopy", 1, 4096, True)
    source, target = tmp_path / "f", tmp_path / "out" / "f"
    source.write_bytes(b"12345")
    bytes_copied, crc, error = copy_answer(copier, source, target, source_kind, target_kind, length=4)
    assert (bytes_copied, crc) == ("0", "")
    assert error == (f"the source changed since it was listed: its length is 5 and its modification time "
                     f"{mtime_ms(source)}, the listing said 4 and {mtime_ms(source)}")
    assert not target.exists()


@pytest.mark.parametrize("target_kind", ["nio", "hadoop"])
def test_an_existing_target_is_replaced_and_without_preserve_gets_the_default_mode(spark, tmp_path: Path,
                                                                                    target_kind: str) -> None:
    copier = instance(spark, "BulkCopy", 1, 4096, True)
    source, target = tmp_path / "f", tmp_path / "g"
    source.write_bytes(b"new")
    source.chmod(0o600)
    target.write_bytes(b"older and longer")
    target.chmod(0o444)
    assert copy_answer(copier, source, target, "nio", target_kind, preserve=False) == ["3", crc32c(b"new"), ""]
    assert target.read_bytes() == b"new"
    assert target.stat().st_mode & 0o777 == 0o666 & ~current_umask()


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_copy_refuses_links_and_directories_as_sources(spark, tree: Path, tmp_path: Path) -> None:
    copier = instance(spark, "BulkCopy", 2, 4096, True)
    tasks = [f"file://{tree}/link", f"file://{tmp_path}/x", "0", "0",
             f"file://{tree}/d", f"file://{tmp_path}/y", "0", "0",
             f"file:{tree}/d", f"file://{tmp_path}/z", "0", "0"]
    answer = str(copier.copy(SEP.join(tasks), True)).split(SEP)
    assert answer == ["0", "", "the source is a symbolic link: it is never copied as its target",
                      "0", "", "the source is a directory",
                      "0", "", "the source is a directory"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t"]


def test_checksums_through_both_kinds_and_their_failures(spark, tree: Path) -> None:
    copier = instance(spark, "BulkCopy", 2, 4096, True)
    paths = [f"file://{tree}/a", f"file:{tree}/d/b", f"file:{tree}/d", f"file://{tree}/missing"]
    answer = str(copier.checksums(SEP.join(paths))).split(SEP)
    assert answer[:9] == ["3", crc32c(b"abc"), "", "5", crc32c(b"12345"), "", "0", "", "it is a directory"]
    assert answer[9:11] == ["0", ""]
    assert answer[11] == f"java.nio.file.NoSuchFileException: {tree}/missing"
