"""Which instances of a file feed are available, on the local file system, with the fingerprint of their
visible files: the flag decides for a feed with one, the folder for a feed without; hidden names do not count."""

from __future__ import annotations

import hashlib
import os
from datetime import datetime
from pathlib import Path

from tests.unit.process_runner.runner_repo import RunnerRepo, utc, write_file
from toolkit.core.instances.availability import InstanceState, probe_files
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.fingerprints import Fingerprint, fingerprint
from toolkit.core.storage.filesystem import FileStatus
from toolkit.core.storage.local import LocalFileSystem

MTIME = 1_790_000_000  # whole seconds: the listing's milliseconds are exact


def probe(runner_repo: RunnerRepo, feed_name: str, *times: datetime) -> dict[datetime, InstanceState]:
    feed = runner_repo.repo.feed(feed_name)
    where = feed_locations(feed, runner_repo.repo.cluster("primary"))
    return probe_files(LocalFileSystem(), where, feed.availability_flag, list(times))


def expected_digest(*entries: tuple[str, int, int]) -> str:
    """The digest fingerprints.py documents, computed here from (relative path, length, mtime in ms)."""
    digest = hashlib.sha256()
    for relative, length, mtime in sorted(entries):
        digest.update(f"{relative}\t{length}\t{mtime}\n".encode())
    return digest.hexdigest()


def clicks(runner_repo: RunnerRepo, hour: int) -> Path:
    return runner_repo.root / f"data/clicks/2026/11/21/{hour:02d}"


def test_a_flag_feed_instance_is_available_when_its_flag_is_there(runner_repo: RunnerRepo) -> None:
    write_file(clicks(runner_repo, 9) / "part-00000.json", "x" * 10, MTIME)  # no flag yet
    ten = clicks(runner_repo, 10)
    write_file(ten / "part-00000.json", "x" * 10, MTIME)
    write_file(ten / "sub/part-00001.json", "y" * 7, MTIME + 1)
    write_file(ten / "_SUCCESS", "", MTIME + 2)
    write_file(ten / ".part-00000.json.crc", "crc", MTIME)
    write_file(ten / "_temporary/0/part-9", "not committed", MTIME)
    write_file(ten / ".hidden/part-8", "staging", MTIME)
    write_file(ten / "sub/_SUCCESS", "", MTIME)

    states = probe(runner_repo, "clicks", utc(2026, 11, 21, 9), utc(2026, 11, 21, 10), utc(2026, 11, 21, 11))

    assert states[utc(2026, 11, 21, 9)] == InstanceState(utc(2026, 11, 21, 9),
                                                         runner_repo.uri("data/clicks/2026/11/21/09"), False, None)
    assert states[utc(2026, 11, 21, 11)] == InstanceState(utc(2026, 11, 21, 11),
                                                          runner_repo.uri("data/clicks/2026/11/21/11"), False, None)
    available = states[utc(2026, 11, 21, 10)]
    assert available.available is True
    assert available.location == runner_repo.uri("data/clicks/2026/11/21/10")
    assert available.fingerprint == Fingerprint(
        expected_digest(("part-00000.json", 10, MTIME * 1000), ("sub/part-00001.json", 7, (MTIME + 1) * 1000)),
        files=2, bytes=17)
    assert available.fingerprint.to_json() == {"digest": available.fingerprint.digest, "files": 2, "bytes": 17}


def test_a_flag_below_the_instance_folder_or_a_flag_folder_does_not_count(runner_repo: RunnerRepo) -> None:
    write_file(clicks(runner_repo, 10) / "sub/_SUCCESS")
    (clicks(runner_repo, 11) / "_SUCCESS").mkdir(parents=True)
    states = probe(runner_repo, "clicks", utc(2026, 11, 21, 10), utc(2026, 11, 21, 11))
    assert [state.available for state in states.values()] == [False, False]


def test_a_feed_without_flag_is_available_when_its_folder_exists(runner_repo: RunnerRepo) -> None:
    (runner_repo.root / "data/raw-events/2026/11/21/10").mkdir(parents=True)  # empty, but there
    write_file(runner_repo.root / "data/raw-events/2026/11/21/11/part-0", "abc", MTIME)
    write_file(runner_repo.root / "data/raw-events/2026/11/21/12", "a file where the folder belongs")

    states = probe(runner_repo, "raw-events", *(utc(2026, 11, 21, h) for h in (10, 11, 12, 13)))

    assert states[utc(2026, 11, 21, 10)].available is True
    assert states[utc(2026, 11, 21, 10)].fingerprint == Fingerprint(hashlib.sha256().hexdigest(), 0, 0)
    assert states[utc(2026, 11, 21, 11)].fingerprint == Fingerprint(expected_digest(("part-0", 3, MTIME * 1000)), 1, 3)
    assert states[utc(2026, 11, 21, 12)].available is False
    assert states[utc(2026, 11, 21, 13)].available is False


def test_probing_instances_across_days_and_a_missing_parent(runner_repo: RunnerRepo) -> None:
    for day, hour in ((20, 23), (21, 0)):
        write_file(runner_repo.root / f"data/clicks/2026/11/{day}/{hour:02d}/_SUCCESS")
    times = [utc(2026, 11, 20, 23), utc(2026, 11, 21, 0), utc(2026, 11, 22, 0)]  # no folder for the 22nd
    states = probe(runner_repo, "clicks", *times)
    assert [states[t].available for t in times] == [True, True, False]
    assert states[utc(2026, 11, 20, 23)].fingerprint == Fingerprint(hashlib.sha256().hexdigest(), 0, 0)


def test_a_rewrite_of_the_same_size_changes_the_fingerprint(runner_repo: RunnerRepo) -> None:
    ten = clicks(runner_repo, 10)
    part = write_file(ten / "part-0", "aaaa", MTIME)
    write_file(ten / "_SUCCESS", "", MTIME)
    before = probe(runner_repo, "clicks", utc(2026, 11, 21, 10))[utc(2026, 11, 21, 10)].fingerprint

    os.utime(ten / "_SUCCESS", (MTIME + 60, MTIME + 60))  # the flag touched again: hidden, no change
    assert probe(runner_repo, "clicks", utc(2026, 11, 21, 10))[utc(2026, 11, 21, 10)].fingerprint == before

    write_file(part, "bbbb", MTIME + 3600)  # same size, new content and time
    after = probe(runner_repo, "clicks", utc(2026, 11, 21, 10))[utc(2026, 11, 21, 10)].fingerprint

    assert before is not None and after is not None
    assert (after.files, after.bytes) == (before.files, before.bytes) == (1, 4)
    assert after.digest != before.digest
    assert after.digest == expected_digest(("part-0", 4, (MTIME + 3600) * 1000))


def test_identical_trees_have_equal_fingerprints(runner_repo: RunnerRepo) -> None:
    for hour in (10, 11):
        write_file(clicks(runner_repo, hour) / "a/part-0", "same", MTIME)
        write_file(clicks(runner_repo, hour) / "part-1", "bytes!", MTIME + 5)
        write_file(clicks(runner_repo, hour) / "_SUCCESS", "", MTIME + hour)  # flags differ: not fingerprinted
    write_file(clicks(runner_repo, 12) / "a/part-0", "same", MTIME)
    write_file(clicks(runner_repo, 12) / "part-2", "bytes!", MTIME + 5)  # another name
    write_file(clicks(runner_repo, 12) / "_SUCCESS")

    states = probe(runner_repo, "clicks", *(utc(2026, 11, 21, h) for h in (10, 11, 12)))

    prints = [states[utc(2026, 11, 21, h)].fingerprint for h in (10, 11, 12)]
    assert prints[0] == prints[1]
    assert prints[0] is not None and prints[2] is not None and prints[0].digest != prints[2].digest


def test_fingerprint_of_a_table_partition_includes_its_create_time() -> None:
    files = [FileStatus("file:///w/t/ds=1/part-0", 5, 1000, False)]
    plain = fingerprint("file:///w/t/ds=1/", files)
    assert plain == Fingerprint(expected_digest(("part-0", 5, 1000)), 1, 5)
    created = fingerprint("file:///w/t/ds=1", files, created=1_790_000_000.5)
    assert created.digest != plain.digest
    digest = hashlib.sha256(b"created\t1790000000.500\npart-0\t5\t1000\n").hexdigest()
    assert created == Fingerprint(digest, 1, 5)
