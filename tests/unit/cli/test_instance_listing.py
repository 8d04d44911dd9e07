"""`toolkit instances --listing` (issue 71, item 4): Falcon's instance listing read from a local cluster's storage and
ledger, no Spark. Instances are made as the toolkit makes them: flags and folders on disk, publication events through
the ledger, and evictions by real `toolkit retain` runs (one deleting, one archiving)."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest

from tests.unit.retention.archive_repo import make_archive_repo
from tests.unit.retention.retention_repo import instance, utc
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.records import PublicationFacts
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import FileStatus, StorageError, each_listed
from toolkit.core.storage.local import LocalFileSystem
from toolkit.views.instance_listing import listing as listing_module
from toolkit.views.instance_listing.listing import list_feed_instances
from toolkit.views.instance_listing.records import ListedInstance, ListingState

WINDOW = ("--from", "2025-12-31T20:00Z", "--to", "2026-01-01T06:00Z")
PART = {"part-00000": b"x" * 100}
STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


@dataclass(frozen=True)
class Lake:
    """A config repo, primary's root, the folder beside the root that links point into, and the retention runs that
    deleted clicks 2025-12-31T20:00 and 21:00 and archived 22:00 and 23:00."""

    repo: Path
    root: Path
    outside: Path
    deleted_by: str
    archived_by: str

    def uri(self, relative: str) -> str:
        return f"file://{self.root}/{relative}"

    def clicks(self, t: datetime) -> str:
        return self.uri(f"data/clicks/{t:%Y/%m/%d/%H}")

    def listing(self, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
        code = main(["instances", "--repo", str(self.repo), "--feed", "clicks", "--cluster", "primary", "--listing",
                     *argv])
        out, err = capsys.readouterr()
        return code, out, err


def dated(path: Path, at: datetime) -> None:
    """Give `path` (a file, or a folder once its entries are made) the modification time `at`."""
    os.utime(path, (at.timestamp(), at.timestamp()), follow_symlinks=False)


def publish(repo: Path, t: datetime, run_id: str, at: datetime, location: str) -> None:
    """A publication event of clicks at `t`, recorded at `at` as a producing process records it."""
    cluster = ConfigRepo.load(repo).cluster("primary")
    ledger = Ledger.of(LocalFileSystem(), cluster, event_clock=lambda: at.timestamp())
    ledger.record_publication(PublicationFacts("clicks", "primary", t, producer="process:clicks-loader", run_id=run_id,
                                               location=location, fingerprint=None))


def retain(capsys: pytest.CaptureFixture[str], repo: Path, time: str) -> str:
    """A real `toolkit retain` of clicks on primary at `time`; its run id."""
    code = main(["retain", "--repo", str(repo), "--feed", "clicks", "--cluster", "primary", "--time", time])
    status = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert (code, status["status"], status["instances_evicted"]) == (0, "SUCCEEDED", 2)
    return str(status["run_id"])


@pytest.fixture()
def lake(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Lake:
    """clicks on primary (flag _SUCCESS, retention days(90)), 2025-12-31T20:00 .. 2026-01-01T06:00:
    20, 21 deleted by retention; 22, 23 archived by it; 00 flagged and published; 01 flagged, an outside producer's;
    02 without its flag; 03 without its flag but published; 04 never there; 05 flagged, with a hidden file, a sub-folder
    and a link to a file outside the root; 06 a link to a complete instance outside the root."""
    repo, root = make_archive_repo(tmp_path, action="delete")
    for hour in range(20, 24):
        instance(root, "data/clicks", utc(2025, 12, 31, hour), PART)
    deleted_by = retain(capsys, repo, "2026-03-31T22:00Z")  # the cut-off is 2025-12-31T22:00Z
    feed = repo / "feeds" / "clicks.yaml"
    feed.write_text(feed.read_text().replace("action: delete", "action: archive", 1))
    archived_by = retain(capsys, repo, "2026-04-01T00:00Z")  # 2026-01-01T00:00Z
    assert (root / "archive/data/clicks/2025/12/31/22/part-00000").read_bytes() == PART["part-00000"]
    outside = tmp_path / "outside"
    (outside / "06").mkdir(parents=True)
    (outside / "06" / "part-00000").write_bytes(b"y" * 500)
    (outside / "06" / "_SUCCESS").write_bytes(b"")
    (outside / "big.bin").write_bytes(b"z" * 1000)
    lake = Lake(repo, root, outside, deleted_by, archived_by)
    for hour, flag in ((0, True), (1, True), (2, False), (3, False)):
        instance(root, "data/clicks", utc(2026, 1, 1, hour), PART, flag=flag)
    five = instance(root, "data/clicks", utc(2026, 1, 1, 5), {**PART, ".part-00000.crc": b"c" * 12,
                                                              "sub/part-00001": b"s" * 50})
    (five / "escape").symlink_to(outside / "big.bin")
    (root / "data/clicks/2026/01/01/06").symlink_to(outside / "06")
    publish(repo, utc(2026, 1, 1, 0), "run-00", utc(2026, 1, 1, 0, 55), lake.clicks(utc(2026, 1, 1, 0)))
    publish(repo, utc(2026, 1, 1, 3), "run-03", utc(2026, 1, 1, 3, 58), lake.clicks(utc(2026, 1, 1, 3)))
    for hour, minute in ((0, 50), (1, 40), (5, 45)):
        dated(root / f"data/clicks/2026/01/01/{hour:02d}/_SUCCESS", utc(2026, 1, 1, hour, minute))
    for hour in (2, 3):
        dated(root / f"data/clicks/2026/01/01/{hour:02d}", utc(2026, 1, 1, hour, 30))
    return lake


def listed(lake: Lake, hour: int, state: str, size: int | None = None, created: str | None = None,
           run: str | None = None, links: tuple[str, ...] = ()) -> dict[str, object]:
    """An instance of 2026-01-01 as the JSON form lists it."""
    t = utc(2026, 1, 1, hour)
    published = {"run-00": "2026-01-01T00:55:00Z", "run-03": "2026-01-01T03:58:00Z"}
    return {"time": f"2026-01-01T{hour:02d}:00Z", "state": state, "path": lake.clicks(t), "size": size,
            "created": created,
            "run": {"producer": "process:clicks-loader", "run_id": run, "at": published[run]} if run else None,
            "evicted": None, "archive": None, "links": list(links)}


def gone(lake: Lake, hour: int, state: str, run_id: str, at: str) -> dict[str, object]:
    """An instance of 2025-12-31 that retention took."""
    t = utc(2025, 12, 31, hour)
    archive = lake.uri(f"archive/data/clicks/{t:%Y/%m/%d/%H}") if state == "ARCHIVED" else None
    return {"time": f"2025-12-31T{hour:02d}:00Z", "state": state, "path": lake.clicks(t), "size": None,
            "created": None, "run": None, "evicted": {"producer": "retention", "run_id": run_id, "at": at},
            "archive": archive, "links": []}


def test_each_instance_has_its_state_size_creation_time_run_and_path(
        lake: Lake, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = lake.listing(capsys, *WINDOW)
    assert code == 0
    listing = json.loads(out)
    instances = listing.pop("instances")
    assert listing == {"feed": "clicks", "cluster": "primary", "from": "2025-12-31T20:00Z", "to": "2026-01-01T06:00Z",
                       "availability_flag": "_SUCCESS",
                       "summary": {"AVAILABLE": 4, "PARTIAL": 1, "EMPTY": 0, "MISSING": 2, "EVICTED": 2,
                                   "ARCHIVED": 2}}
    at = [item["evicted"]["at"] for item in instances[:4]]
    assert all(STAMP.fullmatch(stamp) for stamp in at)
    assert instances == [
        gone(lake, 20, "EVICTED", lake.deleted_by, at[0]),
        gone(lake, 21, "EVICTED", lake.deleted_by, at[1]),
        gone(lake, 22, "ARCHIVED", lake.archived_by, at[2]),
        gone(lake, 23, "ARCHIVED", lake.archived_by, at[3]),
        listed(lake, 0, "AVAILABLE", 100, "2026-01-01T00:50:00Z", run="run-00"),  # the flag's time
        listed(lake, 1, "AVAILABLE", 100, "2026-01-01T01:40:00Z"),  # an outside producer's: no run
        listed(lake, 2, "PARTIAL", 100, "2026-01-01T02:30:00Z"),  # no flag: the folder's time
        listed(lake, 3, "AVAILABLE", 100, "2026-01-01T03:30:00Z", run="run-03"),  # no flag, but published
        listed(lake, 4, "MISSING"),
        # every file counted (100 + 12 hidden + 50 below), the link's 1,000 bytes outside not
        listed(lake, 5, "AVAILABLE", 162, "2026-01-01T05:45:00Z", links=(lake.clicks(utc(2026, 1, 1, 5)) + "/escape",)),
        listed(lake, 6, "MISSING", links=(lake.clicks(utc(2026, 1, 1, 6)),)),  # a complete instance, behind a link
    ]
    assert err == (f"instances: 2 symbolic link(s) not followed, the first {lake.clicks(utc(2026, 1, 1, 5))}/escape: "
                   "the toolkit never follows a link (it may lead outside the cluster root); the listing names each.\n")


def test_the_text_form_is_a_line_per_instance_in_columns_and_a_count_per_state(
        lake: Lake, capsys: pytest.CaptureFixture[str]) -> None:
    at = [item["evicted"]["at"] for item in json.loads(lake.listing(capsys, *WINDOW)[1])["instances"][:4]]
    code, out, _ = lake.listing(capsys, *WINDOW, "--format", "text")
    assert code == 0
    day = lake.uri("data/clicks/2026/01/01")
    old = lake.uri("data/clicks/2025/12/31")
    archive = lake.uri("archive/data/clicks/2025/12/31")
    assert out.splitlines() == [
        "feed clicks on cluster primary, 2025-12-31T20:00Z .. 2026-01-01T06:00Z: 11 instance(s), flag _SUCCESS",
        "  TIME               STATE      SIZE   CREATED               RUN                             PATH",
        f"  2025-12-31T20:00Z  EVICTED    -      -                     -                               {old}/20  "
        f"(evicted at {at[0]} by run {lake.deleted_by})",
        f"  2025-12-31T21:00Z  EVICTED    -      -                     -                               {old}/21  "
        f"(evicted at {at[1]} by run {lake.deleted_by})",
        f"  2025-12-31T22:00Z  ARCHIVED   -      -                     -                               {old}/22  "
        f"(archived to {archive}/22 at {at[2]} by run {lake.archived_by})",
        f"  2025-12-31T23:00Z  ARCHIVED   -      -                     -                               {old}/23  "
        f"(archived to {archive}/23 at {at[3]} by run {lake.archived_by})",
        f"  2026-01-01T00:00Z  AVAILABLE  100 B  2026-01-01T00:50:00Z  run-00 (process:clicks-loader)  {day}/00",
        f"  2026-01-01T01:00Z  AVAILABLE  100 B  2026-01-01T01:40:00Z  -                               {day}/01",
        f"  2026-01-01T02:00Z  PARTIAL    100 B  2026-01-01T02:30:00Z  -                               {day}/02",
        f"  2026-01-01T03:00Z  AVAILABLE  100 B  2026-01-01T03:30:00Z  run-03 (process:clicks-loader)  {day}/03",
        f"  2026-01-01T04:00Z  MISSING    -      -                     -                               {day}/04",
        f"  2026-01-01T05:00Z  AVAILABLE  162 B  2026-01-01T05:45:00Z  -                               {day}/05  "
        f"(link not followed: {day}/05/escape)",
        f"  2026-01-01T06:00Z  MISSING    -      -                     -                               {day}/06  "
        f"(link not followed: {day}/06)",
        "summary: AVAILABLE 4, PARTIAL 1, EMPTY 0, MISSING 2, EVICTED 2, ARCHIVED 2",
    ]


def test_sizes_read_for_people_in_the_text_form(lake: Lake, capsys: pytest.CaptureFixture[str]) -> None:
    big = lake.root / "data/clicks/2026/01/01/04"
    big.mkdir()
    (big / "part-00000").write_bytes(b"b" * (3 * 1024 * 1024 + 512 * 1024))
    (big / "_SUCCESS").write_bytes(b"")
    code, out, _ = lake.listing(capsys, "--from", "2026-01-01T04:00Z", "--to", "2026-01-01T04:00Z", "--format", "text")
    assert code == 0
    assert out.splitlines()[2].split()[:4] == ["2026-01-01T04:00Z", "AVAILABLE", "3.5", "MiB"]


def test_a_feed_without_a_flag_is_available_with_a_visible_file_and_empty_without_one(
        lake: Lake, capsys: pytest.CaptureFixture[str]) -> None:
    feed = lake.repo / "feeds" / "clicks.yaml"
    feed.write_text(feed.read_text().replace("availabilityFlag: _SUCCESS\n", ""))
    day = lake.root / "data/clicks/2026/01/02"
    instance(lake.root, "data/clicks", utc(2026, 1, 2, 0), PART, flag=False)  # data: available
    instance(lake.root, "data/clicks", utc(2026, 1, 2, 1), {"_SUCCESS": b"", ".hidden/part-0": b"h" * 7,
                                                            "_logs/x": b"l" * 3}, flag=False)  # nothing readers read
    instance(lake.root, "data/clicks", utc(2026, 1, 2, 2), {}, flag=False)  # empty, but published: available
    publish(lake.repo, utc(2026, 1, 2, 2), "run-02", utc(2026, 1, 2, 2, 59), lake.clicks(utc(2026, 1, 2, 2)))
    for hour in range(3):
        dated(day / f"{hour:02d}", utc(2026, 1, 2, hour, 10))
    code, out, _ = lake.listing(capsys, "--from", "2026-01-02T00:00Z", "--to", "2026-01-02T03:00Z")
    assert code == 0
    listing = json.loads(out)
    assert (listing["availability_flag"], listing["summary"]) == (
        None, {"AVAILABLE": 2, "PARTIAL": 0, "EMPTY": 1, "MISSING": 1, "EVICTED": 0, "ARCHIVED": 0})
    assert [(i["state"], i["size"], i["created"], i["run"] and i["run"]["run_id"]) for i in listing["instances"]] == [
        ("AVAILABLE", 100, "2026-01-02T00:10:00Z", None),
        ("EMPTY", 10, "2026-01-02T01:10:00Z", None),
        ("AVAILABLE", 0, "2026-01-02T02:10:00Z", "run-02"),
        ("MISSING", None, None, None),
    ]


def test_a_link_on_the_way_to_the_instances_is_named_and_never_followed(
        lake: Lake, capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = lake.outside / "month"
    for hour in range(24):
        instance(elsewhere, "", utc(2026, 2, 1, hour), PART)  # a complete day, outside the root
    (lake.root / "data/clicks/2026/02").symlink_to(elsewhere / "2026/02")  # the month above the day's folder
    code, out, err = lake.listing(capsys, "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T23:00Z")
    assert code == 0
    listing = json.loads(out)
    link = lake.uri("data/clicks/2026/02")
    assert listing["summary"]["MISSING"] == 24
    assert {(i["state"], i["size"], tuple(i["links"])) for i in listing["instances"]} == {("MISSING", None, (link,))}
    assert f"1 symbolic link(s) not followed, the first {link}:" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--process", "hourly-clicks-summary", "--time", "2026-01-01T10:00Z", "--listing"],
         "--listing lists a feed's instances: give --feed"),
        (["--feed", "clicks-daily-table", "--cluster", "primary", "--from", "2026-01-01T00:00Z",
          "--to", "2026-01-02T00:00Z", "--listing"],
         "The feed 'clicks-daily-table' is a catalog table on cluster 'primary': its partitions are read through the "
         "Hive metastore client, which runs in Spark's JVM, so --listing lists file feeds only"),
        (["--feed", "clicks", "--cluster", "primary", "--from", "2026-01-01T00:00Z", "--to", "2040-01-01T00:00Z",
          "--listing"],
         "The window 2026-01-01T00:00Z .. 2040-01-01T00:00Z holds 122713 instances of feed 'clicks', more than the "
         "100000 --listing lists at once"),
        (["--feed", "clicks", "--cluster", "primary", "--from", "2026-01-01T00:00Z", "--listing"],
         "--feed needs --cluster, --from and --to"),
        (["--feed", "clicks", "--cluster", "primary", *WINDOW, "--listing", "--format", "xml"],
         "Unknown --format 'xml'"),
        (["--feed", "nope", "--cluster", "primary", *WINDOW, "--listing"], "Unknown feed 'nope'"),
        (["--feed", "clicks", "--cluster", "primary", "--from", "2026-01-01T00:00", "--to", "2026-01-01T01:00Z",
          "--listing"], "Invalid --from"),
    ],
)
def test_bad_calls_exit_2_with_one_sentence(lake: Lake, capsys: pytest.CaptureFixture[str], argv: list[str],
                                            message: str) -> None:
    code = main(["instances", "--repo", str(lake.repo), *argv])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith("toolkit: ") and message in err and len(err.strip().splitlines()) == 1


def test_a_damaged_event_record_exits_1_naming_its_file(lake: Lake, capsys: pytest.CaptureFixture[str]) -> None:
    [record] = (lake.root / "feed-toolkit/working/ledger/events/clicks/20260101T0300Z").glob("*.json")
    record.write_text('{"feed": "clicks", "cluster": ')
    code, out, err = lake.listing(capsys, *WINDOW)
    assert (code, out) == (1, "")
    assert err.startswith("toolkit: ") and str(record) in err and len(err.strip().splitlines()) == 1


def test_a_damaged_eviction_batch_exits_1_naming_its_file(lake: Lake, capsys: pytest.CaptureFixture[str]) -> None:
    batches = sorted((lake.root / "feed-toolkit/working/ledger/evictions/clicks").glob("*.json"))
    assert len(batches) == 2
    batches[1].write_text("[]")
    code, out, err = lake.listing(capsys, *WINDOW)
    assert (code, out) == (1, "")
    assert err.startswith("toolkit: ") and str(batches[1]) in err and len(err.strip().splitlines()) == 1


def test_a_cluster_root_that_is_not_there_exits_1_and_lists_nothing(
        lake: Lake, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.rmtree(lake.root)
    code, out, err = lake.listing(capsys, *WINDOW)
    assert (code, out) == (1, "")
    assert f"The root file://{lake.root} of cluster 'primary' does not exist" in err


# -- what an attack found -------------------------------------------------------------------------------------------


def test_a_time_no_calendar_holds_is_an_unknown_creation_time() -> None:
    """A clock set to year 10000 (tmpfs and HDFS take any time): the listing goes on, the instance undated."""
    far = ListedInstance(utc(2026, 1, 1, 0), ListingState.AVAILABLE, "file:///r/x", 1, 253402300800000, None, None,
                         None, ())
    assert far.created is None and far.to_json()["created"] is None


class _Unreadable(LocalFileSystem):
    """A folder this file system cannot list, as one without read permission is to a user who is not its owner (the
    tests run as root, which reads every folder)."""

    def __init__(self, refused: str) -> None:
        super().__init__()
        self.refused = refused

    def list(self, path: str) -> list[FileStatus]:
        if path.rstrip("/") == self.refused:
            raise StorageError(f"Cannot list {path}: Permission denied.")
        return super().list(path)

    def list_many(self, paths: Sequence[str]) -> dict[str, list[FileStatus]]:
        return each_listed(paths, self.list)

    def list_kinds_many(self, paths: Sequence[str]) -> dict[str, list[FileStatus]]:
        return each_listed(paths, self.list)


@pytest.mark.parametrize("folder", ["data/clicks/2026/01/01/00", "data/clicks/2026/01/01/05/sub",
                                    "data/clicks/2026/01/01"])
def test_a_folder_that_cannot_be_read_stops_the_listing_naming_it(lake: Lake, monkeypatch: pytest.MonkeyPatch,
                                                                   folder: str) -> None:
    """An instance, a folder in one, a day: never listed as an empty folder (PARTIAL, 0 B, MISSING)."""
    refusing = _Unreadable(lake.uri(folder))
    monkeypatch.setattr(listing_module, "open_present_ledger", lambda cluster, now: Ledger.of(refusing, cluster))
    cluster = ConfigRepo.load(lake.repo)
    with pytest.raises(StorageError, match=f"Cannot list {re.escape(lake.uri(folder))}: Permission denied"):
        list_feed_instances(cluster, "clicks", "primary", utc(2026, 1, 1, 0), utc(2026, 1, 1, 5))


class _Evicting(LocalFileSystem):
    """Retention deleting an instance while the listing walks it: the folder goes between the day's listing and the
    listing of the instance's own tree."""

    def __init__(self, going: Path) -> None:
        super().__init__()
        self.going = going

    def list_many(self, paths: Sequence[str]) -> dict[str, list[FileStatus]]:
        if self.going.exists() and any(path.endswith(self.going.name) for path in paths):
            shutil.rmtree(self.going)
        return super().list_many(paths)


def test_an_instance_deleted_while_it_is_listed_is_not_there_rather_than_partial(
        lake: Lake, monkeypatch: pytest.MonkeyPatch) -> None:
    going = lake.root / "data/clicks/2026/01/01/01"
    evicting = _Evicting(going)
    monkeypatch.setattr(listing_module, "open_present_ledger", lambda cluster, now: Ledger.of(evicting, cluster))
    found = list_feed_instances(ConfigRepo.load(lake.repo), "clicks", "primary", utc(2026, 1, 1, 1),
                                utc(2026, 1, 1, 1))
    (one,) = found.instances
    assert not going.exists()
    assert (one.state, one.size, one.created) == (ListingState.MISSING, None, None)


def test_data_back_where_retention_evicted_it_names_no_run(capsys: pytest.CaptureFixture[str], lake: Lake) -> None:
    """The run that published it before its eviction is not the one that made what is there now."""
    t = utc(2025, 12, 31, 19)
    instance(lake.root, "data/clicks", t, PART)
    publish(lake.repo, t, "run-19", utc(2025, 12, 31, 19, 55), lake.clicks(t))
    assert main(["retain", "--repo", str(lake.repo), "--feed", "clicks", "--cluster", "primary", "--time",
                 "2026-03-31T22:00Z"]) == 0
    assert not (lake.root / "data/clicks/2025/12/31/19").exists()
    instance(lake.root, "data/clicks", t, {"part-00000": b"outsider"})
    capsys.readouterr()
    code, out, _ = lake.listing(capsys, "--from", "2025-12-31T19:00Z", "--to", "2025-12-31T19:00Z")
    (back,) = json.loads(out)["instances"]
    assert (code, back["state"], back["size"], back["run"]) == (0, "AVAILABLE", 8, None)
    assert back["evicted"] is not None


def test_an_eviction_whose_path_moved_since_is_evicted_not_archived(capsys: pytest.CaptureFixture[str],
                                                                    lake: Lake) -> None:
    """The deleted instances' events name the old root's paths; the run that deleted them did not archive."""
    cluster = lake.repo / "clusters" / "primary.yaml"
    moved = lake.root.parent / "moved"
    shutil.copytree(lake.root, moved, symlinks=True)
    cluster.write_text(cluster.read_text().replace(f"file://{lake.root}", f"file://{moved}"))
    code, out, _ = lake.listing(capsys, "--from", "2025-12-31T20:00Z", "--to", "2025-12-31T23:00Z")
    states = [item["state"] for item in json.loads(out)["instances"]]
    assert (code, states) == (0, ["EVICTED", "EVICTED", "ARCHIVED", "ARCHIVED"])


def test_control_characters_in_a_name_cannot_forge_a_line(capsys: pytest.CaptureFixture[str], lake: Lake) -> None:
    (lake.root / "data/clicks/2026/01/01/00" / "lnk\n\x1b[2Jevil").symlink_to(lake.outside / "big.bin")
    code, out, err = lake.listing(capsys, "--from", "2026-01-01T00:00Z", "--to", "2026-01-01T00:00Z", "--format",
                                  "text")
    assert code == 0 and "\x1b" not in out + err
    assert len(out.splitlines()) == 4 and err.count("\n") == 1
    assert "lnk\\n\\x1b[2Jevil" in out


@pytest.mark.parametrize("kind", ["a link to nothing", "a file"])
def test_a_cluster_root_that_is_no_folder_exits_1(capsys: pytest.CaptureFixture[str], lake: Lake, kind: str) -> None:
    """Not every instance MISSING with exit 0: the storage is not there."""
    shutil.rmtree(lake.root)
    if kind == "a file":
        lake.root.write_text("x")
    else:
        lake.root.symlink_to(lake.root.parent / "nothing-here")
    code, out, err = lake.listing(capsys, *WINDOW)
    assert (code, out) == (1, "")
    assert err == (f"toolkit: The root file://{lake.root} of cluster 'primary' is not a folder (a file, or a link to "
                   "nothing): its storage is not there (not mounted?) or its write endpoint is wrong; nothing is "
                   "reported from a place that is not there.\n")


def test_a_flag_in_a_sub_folder_counts(capsys: pytest.CaptureFixture[str], lake: Lake) -> None:
    """`availabilityFlag: done/_SUCCESS`: the config takes it, and ingest's closing writes it so."""
    feed = lake.repo / "feeds" / "clicks.yaml"
    feed.write_text(feed.read_text().replace("availabilityFlag: _SUCCESS", "availabilityFlag: done/_SUCCESS"))
    two = lake.root / "data/clicks/2026/01/01/02"
    (two / "done").mkdir()
    (two / "done/_SUCCESS").write_bytes(b"")
    dated(two / "done/_SUCCESS", utc(2026, 1, 1, 2, 44))
    code, out, _ = lake.listing(capsys, "--from", "2026-01-01T01:00Z", "--to", "2026-01-01T02:00Z")
    one, flagged = json.loads(out)["instances"]
    assert code == 0
    assert (one["state"], flagged["state"], flagged["created"]) == ("PARTIAL", "AVAILABLE", "2026-01-01T02:44:00Z")
