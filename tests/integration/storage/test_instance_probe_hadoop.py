"""Probing one instance through Hadoop's file system (what a producer fingerprints right after publishing, and what
a replication rerun with nothing changed pays for): its tree is listed in one JVM call, not a batch per depth, and
its fingerprint is the one the level-by-level walk of a window gives, hidden names, the flag and links included."""

from __future__ import annotations

import os
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from tests.integration.jvm_calls import counted_jvm_calls
from tests.unit.process_runner.runner_repo import RunnerRepo, make_runner_repo, utc, write_file
from toolkit.core.instances.availability import InstanceState, probe_files
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.storage.local import to_uri as uri

MTIME = 1_790_000_000
TEN = utc(2026, 11, 21, 10)
WINDOW = [utc(2026, 11, 21, hour) for hour in range(10, 16)]  # more instances than are listed a tree at a time


@pytest.fixture(scope="module")
def hadoop_fs(spark):
    from toolkit.core.storage.hadoop import HadoopFileSystem

    return HadoopFileSystem(spark)


def probe(hadoop_fs, runner_repo: RunnerRepo, *times: datetime) -> dict[datetime, InstanceState]:
    feed = runner_repo.repo.feed("clicks")
    where = feed_locations(feed, runner_repo.repo.cluster("primary"))
    return probe_files(hadoop_fs, where, feed.availability_flag, list(times))


# Names whose order differs between UTF-16 and code points (U+FF5E sorts before U+1F600 in UTF-16, after it by code
# point), a name that begins another, spaces and a name below the tab in code points.
NAMES = ("part-0", "part-0 a", "part", "part-\uff5e", "part-\U0001f600", "d\u00e9j\u00e0 vu", "part-\x01")


def fill(folder: Path) -> None:
    """Three levels of visible files, hidden files and folders at each, and the flag."""
    for depth, place in enumerate((folder, folder / "a", folder / "a" / "b")):
        for k, name in enumerate(NAMES):
            write_file(place / name, "x" * (depth + k), MTIME + depth)
        write_file(place / ".part-0.crc", "crc", MTIME)
        write_file(place / "_temporary/0/part-9", "not committed", MTIME)
    write_file(folder / "_SUCCESS", "", MTIME)


def test_one_instance_is_listed_in_one_call_with_the_fingerprint_of_the_level_walk(spark, hadoop_fs,
                                                                                   tmp_path: Path) -> None:
    runner_repo = make_runner_repo(tmp_path)
    for t in WINDOW:
        fill(runner_repo.root / f"data/clicks/2026/11/21/{t.hour:02d}")
    window = probe(hadoop_fs, runner_repo, *WINDOW)  # a batch per depth
    probe(hadoop_fs, runner_repo, TEN)  # warm: the JVM's file system and lister are cached after this

    with counted_jvm_calls(spark) as sent:
        alone = probe(hadoop_fs, runner_repo, TEN)[TEN]

    assert alone == window[TEN]
    assert alone.available and alone.fingerprint is not None and alone.fingerprint.files == 3 * len(NAMES)
    assert len(sent) <= 6, sent  # a batch per depth of the three levels sends about 16


def test_a_link_in_the_instance_gives_the_fingerprint_of_the_level_walk(hadoop_fs, tmp_path: Path) -> None:
    runner_repo = make_runner_repo(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    write_file(elsewhere / "part-x", "not ours", MTIME + 100)
    for t in WINDOW:
        folder = runner_repo.root / f"data/clicks/2026/11/21/{t.hour:02d}"
        fill(folder)
        os.symlink(elsewhere, folder / "a" / "linked")
        os.symlink(elsewhere / "part-x", folder / "part-linked")

    window = probe(hadoop_fs, runner_repo, *WINDOW)
    alone = probe(hadoop_fs, runner_repo, TEN)[TEN]

    assert alone == window[TEN]
    assert alone.fingerprint is not None
    assert alone.fingerprint.files == 3 * len(NAMES) + 2  # both links count, as files of no length


def test_a_target_found_unchanged_is_digested_as_the_level_walk_fingerprints_it(hadoop_fs, tmp_path: Path) -> None:
    runner_repo = make_runner_repo(tmp_path)
    for t in WINDOW:
        fill(runner_repo.root / f"data/clicks/2026/11/21/{t.hour:02d}")
    window = probe(hadoop_fs, runner_repo, *WINDOW)
    source = tmp_path / "source"
    shutil.copytree(runner_repo.root / "data/clicks/2026/11/21/10", source)  # times kept: the same files
    target = uri(runner_repo.root / "data/clicks/2026/11/21/10")
    suffixes = [".replicating", ".replaced"]

    count, digest = hadoop_fs.same_files_digested(uri(source), target, ["_SUCCESS"], suffixes)

    assert count == 3 * len(NAMES) + 3 * 2  # the hidden files are compared too; the flag is not
    assert digest is not None and window[TEN].fingerprint == Fingerprint(digest.digest, digest.files, digest.bytes)
    (source / "DONE").write_text("")  # a flag that is no hidden name: left out of the walk, so no digest
    shutil.copy2(source / "DONE", runner_repo.root / "data/clicks/2026/11/21/10/DONE")
    assert hadoop_fs.same_files_digested(uri(source), target, ["DONE"], suffixes)[1] is None
    os.symlink(source / "part", runner_repo.root / "data/clicks/2026/11/21/10/a/linked")  # not compared: no digest
    assert hadoop_fs.same_files_digested(uri(source), target, ["DONE"], suffixes) == (3 * len(NAMES) + 6 + 1, None)
