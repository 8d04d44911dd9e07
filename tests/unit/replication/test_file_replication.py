"""File-feed replication on the local file system (the pure-Python one; the Hadoop one with the JVM copier
runs the same flows in tests/integration/replication): which instance, copy, skip, publish, flag, wait."""

from __future__ import annotations

import json
import os
import re
import textwrap
from datetime import datetime
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import instance, replication_clusters, utc
from toolkit.actions.replication.runner import ReplicationRequest, run_replication
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import UsageError
from toolkit.services.runtime.run_context import RunContext

T = utc(2026, 11, 21, 10)


def contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def clusters(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(repo, primary root, backup root) of the template with temporary roots."""
    return replication_clusters(tmp_path)


def replicate(repo: Path, t: datetime = T, now: datetime | None = None, source: str | None = None,
              window: tuple[datetime, datetime] | None = None, recopy: bool = False):
    return run_replication(ConfigRepo.load(repo), "clicks", "backup",
                           ReplicationRequest(t, now or t, source=source, window=window, recopy=recopy),
                           RunContext(LocalFileSystem(), run_id="r1"))


FILES = {"part-00000.json": b'{"page": "/"}\n' * 100, "part-00001.json": b'{"page": "/cart"}\n' * 7,
         "nested/part-00002.json": b"x"}


def test_the_instance_is_copied_published_and_recorded(clusters) -> None:
    repo, primary, backup = clusters
    source = instance(primary, "data/clicks", T, FILES)
    result = replicate(repo)
    target = backup / "replica/clicks/2026/11/21/10"
    assert result.status == "SUCCEEDED"
    assert contents(target) == contents(source)
    for name in FILES:  # the copy has the source's mtime: the next run can tell it is unchanged
        assert os.stat(target / name).st_mtime_ns == os.stat(source / name).st_mtime_ns // 1_000_000 * 1_000_000
    counters = result.counters()
    assert (counters["files_copied"], counters["files_skipped"], counters["bytes_copied"]) == \
        (3, 0, sum(len(data) for data in FILES.values()))
    assert not list(target.parent.glob(".*"))  # no staging folder left
    record = json.loads((backup / "feed-toolkit/working/replication/clicks/20261121T1000Z.json").read_text())
    assert (record["instance"], record["status"], record["flag_written"]) == ("2026-11-21T10:00Z", "SUCCEEDED", True)
    assert record["sources"][0]["files_copied"] == 3


def test_a_rerun_copies_nothing_and_a_change_copies_only_the_changed_file(clusters) -> None:
    repo, primary, backup = clusters
    source = instance(primary, "data/clicks", T, FILES)
    replicate(repo)
    again = replicate(repo).counters()
    assert (again["files_copied"], again["files_skipped"], again["instances_published"]) == (0, 3, 0)
    (source / "part-00001.json").write_bytes(b"rewritten, longer than before\n")
    (source / "nested/part-00002.json").unlink()
    changed = replicate(repo).counters()
    assert (changed["files_copied"], changed["files_skipped"]) == (1, 1)
    target = backup / "replica/clicks/2026/11/21/10"
    assert contents(target) == contents(source)
    assert not list(target.parent.glob(".*"))


def test_a_recopy_copies_every_file_again_where_a_rerun_trusts_length_and_time(clusters) -> None:
    """`toolkit rerun --feed F --action replication` without --continue (issue 71, item 3): a copy damaged on the
    target with its length and modification time kept, and a staged file a killed run left, are what a plain rerun
    keeps; a recopy copies every file from the source and publishes them whole."""
    repo, primary, backup = clusters
    source = instance(primary, "data/clicks", T, FILES)
    replicate(repo)
    target = backup / "replica/clicks/2026/11/21/10"
    damaged = target / "part-00001.json"
    kept = os.stat(damaged)
    damaged.write_bytes(b"X" * kept.st_size)
    os.utime(damaged, ns=(kept.st_atime_ns, kept.st_mtime_ns))
    again = replicate(repo).counters()
    assert (again["files_copied"], again["files_skipped"]) == (0, 3)
    assert damaged.read_bytes() == b"X" * kept.st_size  # what a rerun cannot see
    recopied = replicate(repo, recopy=True).counters()
    assert (recopied["files_copied"], recopied["files_skipped"], recopied["instances_published"]) == (3, 0, 1)
    assert contents(target) == contents(source)
    assert not list(target.parent.glob(".*"))


def test_delay_selects_an_earlier_instance(clusters) -> None:
    repo, primary, backup = clusters
    feed = repo / "feeds/clicks.yaml"
    feed.write_text(feed.read_text().replace("    type: target\n", "    type: target\n    delay: hours(1)\n"))
    instance(primary, "data/clicks", utc(2026, 11, 21, 8), FILES)
    result = replicate(repo, t=utc(2026, 11, 21, 9, 30))  # minus 1 hour: 08:30, the 08:00 instance
    assert [i.instance for i in result.instances] == [utc(2026, 11, 21, 8)]
    assert (backup / "replica/clicks/2026/11/21/08/_SUCCESS").exists()


def test_an_unavailable_source_waits_until_the_timeout_then_fails(clusters) -> None:
    repo, primary, backup = clusters
    instance(primary, "data/clicks", T, FILES, flag=False)  # data without its flag: not complete yet
    waiting = replicate(repo, now=utc(2026, 11, 21, 15, 59))  # default timeout: 6 x hours(1)
    assert waiting.status == "WAITING"
    assert "not available on 'primary' yet" in waiting.reasons()[0]
    assert "waiting until 2026-11-21T16:00Z" in waiting.reasons()[0]
    assert not (backup / "replica").exists()
    failed = replicate(repo, now=utc(2026, 11, 21, 16))
    assert failed.status == "FAILED" and "timed out" in failed.reasons()[0]


def test_outside_the_validity_overlap_is_skipped(clusters) -> None:
    repo, _, _ = clusters
    result = replicate(repo, t=utc(2025, 11, 30, 23))
    assert result.status == "SKIPPED"
    assert "before the first instance of feed 'clicks' on cluster 'backup'" in result.reasons()[0]


def test_an_empty_instance_replicates_as_an_empty_instance(clusters) -> None:
    repo, primary, backup = clusters
    instance(primary, "data/clicks", T, {})
    assert replicate(repo).status == "SUCCEEDED"
    target = backup / "replica/clicks/2026/11/21/10"
    assert contents(target) == {"_SUCCESS": b""}


def test_several_sources_go_into_their_partitions_and_the_flag_waits_for_all(clusters, tmp_path: Path) -> None:
    repo, primary, backup = clusters
    edge_root = tmp_path / "edge"
    edge = (repo / "clusters/primary.yaml").read_text().replace("name: primary", "name: edge")
    (repo / "clusters/edge.yaml").write_text(edge.replace(str(primary), str(edge_root)))
    feed = repo / "feeds/clicks.yaml"
    text = feed.read_text().replace("  - name: primary\n    type: source\n",
                                    "  - name: primary\n    type: source\n    partition: ${cluster.name}\n")
    text = text.replace("clusters:\n", "clusters:\n  - name: edge\n    type: source\n    partition: ${cluster.name}\n"
                        "    validity:\n      start: 2025-12-01T00:00Z\n      end: 2099-12-31T00:00Z\n", 1)
    feed.write_text(text)
    instance(primary, "data/clicks", T, {"a.json": b"from primary"})
    instance(edge_root, "data/clicks", T, {"a.json": b"from edge!"})
    first = replicate(repo, source="primary")
    target = backup / "replica/clicks/2026/11/21/10"
    assert first.status == "SUCCEEDED" and not first.instances[0].flag_written
    assert contents(target) == {"primary/a.json": b"from primary"}  # no flag: edge's part is missing
    both = replicate(repo)
    assert both.instances[0].flag_written
    assert contents(target) == {"primary/a.json": b"from primary", "edge/a.json": b"from edge!", "_SUCCESS": b""}


def test_a_catch_up_window_replicates_what_is_missing(clusters) -> None:
    repo, primary, backup = clusters
    hours = [utc(2026, 11, 21, h) for h in (7, 8, 9)]
    for t in hours:
        instance(primary, "data/clicks", t, {"a.json": t.isoformat().encode()})
    replicate(repo, t=hours[1])
    result = replicate(repo, window=(hours[0], hours[-1]))
    assert [i.instance for i in result.instances] == hours
    assert [i.sources[0].folder.published for i in result.instances] == [True, False, True]
    for t in hours:
        assert (backup / f"replica/clicks/{t:%Y/%m/%d/%H}/a.json").read_bytes() == t.isoformat().encode()


def test_a_source_that_is_not_a_source_is_refused(clusters) -> None:
    repo, _, _ = clusters
    with pytest.raises(UsageError, match=re.escape("Cluster 'backup' is not a source of feed 'clicks': its "
                                                   "sources are primary.")):
        replicate(repo, source="backup")


class ChecksummingLocalFileSystem(LocalFileSystem):
    """The local file system with file checksums of one kind on both sides, as HDFS to HDFS has (stand-in:
    HDFS cannot run here); the digest is a real SHA-256 of the file."""

    def keeps_checksums(self, path: str) -> bool:
        return True

    def checksum(self, path: str) -> str | None:
        import hashlib

        from toolkit.core.storage.local import to_local_path

        return "SHA-256:" + hashlib.sha256(Path(to_local_path(path)).read_bytes()).hexdigest()


def test_with_checksums_on_both_sides_a_same_size_same_mtime_rewrite_is_seen_stand_in_for_hdfs(clusters) -> None:
    repo, primary, backup = clusters
    source = instance(primary, "data/clicks", T, {"a.json": b"0123456789"})
    replicate(repo)
    stamp = os.stat(source / "a.json").st_mtime_ns
    (source / "a.json").write_bytes(b"9876543210")  # same length
    os.utime(source / "a.json", ns=(stamp, stamp))  # and the same mtime
    unseen = replicate(repo).counters()  # length and mtime cannot tell
    assert unseen["files_copied"] == 0
    seen = run_replication(ConfigRepo.load(repo), "clicks", "backup", ReplicationRequest(T, T),
                           RunContext(ChecksummingLocalFileSystem()))
    assert seen.counters()["files_copied"] == 1
    assert (backup / "replica/clicks/2026/11/21/10/a.json").read_bytes() == b"9876543210"


def test_a_daily_feed_with_a_delay_replicates_the_previous_day(clusters) -> None:
    repo, primary, backup = clusters
    (repo / "feeds/daily-sales.yaml").write_text(textwrap.dedent("""\
        kind: feed
        name: daily-sales
        frequency: days(1)
        timezone: Europe/Berlin
        availabilityFlag: _DONE
        clusters:
          - name: primary
            type: source
            validity: {start: "2026-01-01T00:00Z", end: "2099-01-01T00:00Z"}
          - name: backup
            type: target
            delay: hours(2)
            validity: {start: "2026-01-01T00:00Z", end: "2099-01-01T00:00Z"}
        locations:
          data: /data/sales/${YEAR}-${MONTH}-${DAY}
        """))
    day = primary / "data/sales/2026-11-20"
    day.mkdir(parents=True)
    (day / "sales.csv").write_bytes(b"id,amount\n1,9.5\n")
    (day / "_DONE").write_bytes(b"")
    # The instances are at 00:00Z (01:00 in Berlin), from the validity start. 2026-11-21T00:30Z minus the
    # 2-hour delay is 2026-11-20T22:30Z: the instance of 2026-11-20T00:00Z, the 20th in Berlin.
    result = run_replication(ConfigRepo.load(repo), "daily-sales", "backup",
                             ReplicationRequest(utc(2026, 11, 21, 0, 30), utc(2026, 11, 21, 0, 30)),
                             RunContext(LocalFileSystem()))
    assert [i.instance for i in result.instances] == [utc(2026, 11, 20)]
    assert contents(backup / "data/sales/2026-11-20") == {"sales.csv": b"id,amount\n1,9.5\n", "_DONE": b""}


def linked_instance(tmp_path: Path, primary: Path) -> tuple[Path, list[str]]:
    """The instance at T with a link to a folder outside the feed and a link to a file; (it, the links' URIs)."""
    source = instance(primary, "data/clicks", T, FILES)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.json").write_bytes(b"not the feed's\n")
    os.symlink(outside, source / "nested/elsewhere")
    os.symlink(outside / "secret.json", source / "part-link.json")
    return source, [f"file://{source}/nested/elsewhere", f"file://{source}/part-link.json"]


def test_a_link_in_the_source_is_not_copied_and_is_reported(clusters, tmp_path: Path) -> None:
    repo, primary, backup = clusters
    source, links = linked_instance(tmp_path, primary)
    result = replicate(repo)
    target = backup / "replica/clicks/2026/11/21/10"
    assert result.status == "SUCCEEDED"
    assert contents(target) == {**{name: data for name, data in FILES.items()}, "_SUCCESS": b""}
    assert not any(os.path.islink(path) for path in target.rglob("*"))
    assert sorted(result.instances[0].sources[0].folder.links_skipped) == links
    record = json.loads((backup / "feed-toolkit/working/replication/clicks/20261121T1000Z.json").read_text())
    assert sorted(record["sources"][0]["links_skipped"]) == links


def test_the_target_root_cannot_be_deleted_once_replication_knows_it(clusters) -> None:
    from toolkit.core.storage.filesystem import StorageError

    repo, primary, backup = clusters
    instance(primary, "data/clicks", T, FILES)
    fs = LocalFileSystem()
    run_replication(ConfigRepo.load(repo), "clicks", "backup", ReplicationRequest(T, T), RunContext(fs, run_id="r1"))
    with pytest.raises(StorageError, match=f"cluster root file://{backup}"):
        fs.delete(f"file://{backup}/", recursive=True)
    assert (backup / "replica/clicks/2026/11/21/10/_SUCCESS").exists()


def _events(backup: Path) -> list[dict]:
    folder = backup / "feed-toolkit/working/ledger/events/clicks/20261121T1000Z"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))] if folder.exists() else []


def test_the_target_records_a_dataset_event_once_per_publication(clusters) -> None:
    repo, primary, backup = clusters
    source = instance(primary, "data/clicks", T, FILES)
    replicate(repo)
    replicate(repo)  # up to date: its event is there already, nothing more
    [event] = _events(backup)
    target = (backup / "replica/clicks/2026/11/21/10").as_uri()
    assert (event["kind"], event["producer"], event["run_id"], event["cluster"], event["location"]) == (
        "published", "replication:primary", "r1", "backup", target)
    assert (event["fingerprint"]["files"], event["fingerprint"]["bytes"]) == (3, sum(map(len, FILES.values())))
    (source / "part-00001.json").write_bytes(b"rewritten\n")
    replicate(repo)
    kinds = [(e["kind"], e["fingerprint"]["bytes"]) for e in _events(backup)]
    assert kinds == [("published", sum(map(len, FILES.values()))),
                     ("replaced", sum(map(len, FILES.values())) - len(FILES["part-00001.json"]) + 10)]


def test_a_run_killed_between_publication_and_event_has_its_event_written_by_the_next(clusters, monkeypatch) -> None:
    from toolkit.core.ledger.store import Ledger

    repo, primary, backup = clusters
    instance(primary, "data/clicks", T, FILES)
    real = Ledger.record_publication

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("killed right after the publication")

    monkeypatch.setattr(Ledger, "record_publication", killed)
    with pytest.raises(KeyboardInterrupt):
        replicate(repo)
    assert (backup / "replica/clicks/2026/11/21/10/_SUCCESS").exists() and _events(backup) == []
    monkeypatch.setattr(Ledger, "record_publication", real)
    again = replicate(repo)
    assert again.counters()["files_copied"] == 0  # nothing to copy: only the missing event
    [event] = _events(backup)
    assert (event["kind"], event["producer"], event["fingerprint"]["files"]) == ("published", "replication:primary", 3)


def test_a_blocking_check_discards_the_staged_copy_and_a_warning_publishes(tmp_path: Path) -> None:
    """files.py's side of the data-quality gate (Great Expectations itself runs in
    tests/integration/replication/test_replication_quality.py): `check` sees the complete staging folder; a
    blocking result deletes it and publishes nothing; a warning publishes; the results are in the outcome."""
    from toolkit.actions.replication.files import Folder, replicate_folder
    from toolkit.core.entities.model import OnFailure
    from toolkit.core.ledger.quality_results import ExpectationOutcome, GateResult

    fs = LocalFileSystem()
    source = instance(tmp_path / "primary", "data", T, FILES)
    target = tmp_path / "backup/2026/10"
    folder = Folder(f"file://{source}", f"file://{target}", "_SUCCESS")
    seen: list[dict[str, bytes]] = []

    def gate(on_failure: OnFailure):
        def check(staged: str) -> list[GateResult]:
            seen.append(contents(Path(staged.removeprefix("file://"))))
            return [GateResult("clicks", "2026-11-21T10:00Z", "quality/clicks.json", "clicks", on_failure, staged,
                               (ExpectationOutcome("expect_table_row_count_to_equal", False, observed_value=2),))]
        return check

    blocked = replicate_folder(fs, fs.copy_files, folder, check=gate(OnFailure.BLOCK))
    assert (blocked.blocked, blocked.published, blocked.files_copied) == (True, False, 3)
    assert [result.location for result in blocked.quality] == [f"file://{tmp_path}/backup/2026/.10.replicating"]
    assert list(target.parent.iterdir()) == []  # no target, no staging folder
    warned = replicate_folder(fs, fs.copy_files, folder, check=gate(OnFailure.WARN))
    assert (warned.blocked, warned.published, [r.on_failure for r in warned.quality]) == (False, True, [OnFailure.WARN])
    assert contents(target) == FILES
    assert seen == [FILES, FILES]




def test_a_staging_folder_a_killed_run_left_is_removed_by_a_run_that_finds_the_target_whole(clusters) -> None:
    """Found by an attack: a recopy killed mid-copy left its staging folder, and every later run returned early
    (the target matched its source) and kept it for good."""
    repo, primary, backup = clusters
    instance(primary, "data/clicks", T, FILES)
    replicate(repo)
    staging = backup / "replica/clicks/2026/11/21/.10.replicating"
    staging.mkdir()
    (staging / "part-00000.json").write_bytes(b"half a copy")
    again = replicate(repo).counters()
    assert (again["files_copied"], again["files_skipped"]) == (0, 3)
    assert not staging.exists()


def test_a_recopy_keeps_the_instance_available_and_identical_content_records_no_event(clusters) -> None:
    """Found by an attack: a recopy swapped in a copy without its flag (readers saw the instance unavailable until
    the flag was written) and recorded `replaced` for the same content each time (consumers would run again)."""
    from toolkit.core.ledger.store import Ledger

    repo, primary, backup = clusters
    instance(primary, "data/clicks", T, FILES)
    replicate(repo)
    staged_flags = []
    from toolkit.actions.replication import files

    swap = files.Publication.swap

    def watched_swap(self, staging: str, target: str, replaced: str) -> None:  # type: ignore[no-untyped-def]
        staged_flags.append(Path(staging.removeprefix("file://"), "_SUCCESS").exists())
        swap(self, staging, target, replaced)

    files.Publication.swap = watched_swap  # type: ignore[method-assign]
    try:
        assert replicate(repo, recopy=True).status == "SUCCEEDED"
    finally:
        files.Publication.swap = swap  # type: ignore[method-assign]
    assert staged_flags == [True]  # the copy swapped in carries its flag: never a moment without it
    events = Ledger.of(LocalFileSystem(), ConfigRepo.load(repo).cluster("backup")).events("clicks", T)
    assert [event.kind for event in events] == ["published"]
