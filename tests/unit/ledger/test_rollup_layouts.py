"""Monthly roll-ups (toolkit/core/ledger/rollups.py) on hostile layouts of the ledger, on the pure-Python local file
system: a symbolic link where an instance folder, the roll-ups folder or the process folder belongs, a folder where
the month's roll-up file belongs, names with colons, spaces and at the 255-byte limit beside the instances, an odd
spelling of the cluster root. What is left on disk and what readers answer are asserted."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

from tests.disk_tree import tree
from tests.unit.ledger.ledger_support import SetClock, local_cluster
from tests.unit.ledger.test_rollups import BEFORE, OCTOBER, P, write
from toolkit.core.ledger.records import CorruptRecordError
from toolkit.core.ledger.rollup_records import read_rollup
from toolkit.core.ledger.rollups import roll_up
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.local import LocalFileSystem


def make_ledger(tmp_path: Path) -> tuple[Ledger, Path]:
    """A ledger on the local folder `root`, and its process folder."""
    root = tmp_path / "root"
    cluster = local_cluster(tmp_path / "conf", root)
    ledger = Ledger.of(LocalFileSystem(), cluster, clock=SetClock(BEFORE.timestamp()))
    return ledger, root / "feed-toolkit" / "working" / "ledger" / "processes" / P


def status(ledger: Ledger, process: str, t: datetime) -> str | None:
    record = ledger.instance(process, t)
    return record.status if record is not None else None


@pytest.fixture()
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "keep.json").write_bytes(b'{"not": "the ledger\'s"}')
    return folder


def test_a_link_where_an_instance_folder_belongs_is_never_followed_rolled_up_or_deleted(tmp_path: Path,
                                                                                        outside: Path) -> None:
    ledger, process = make_ledger(tmp_path)
    for t in OCTOBER[:3]:
        write(ledger, t, "SUCCEEDED")
    # An instance folder moved elsewhere, a link in its place: its records are not the ledger's to take in.
    moved = process / f"{OCTOBER[1]:%Y%m%dT%H%MZ}"
    os.rename(moved, outside / "instance")
    moved.symlink_to(outside / "instance")
    before = tree(outside)
    report = roll_up(ledger, P, BEFORE, "roll")
    assert report.rolled == 2
    assert read_rollup(ledger.fs, ledger.layout, P, "202610").times() == {OCTOBER[0], OCTOBER[2]}
    assert moved.is_symlink() and tree(outside) == before  # left, not followed, not deleted through
    assert sorted(p.name for p in process.iterdir()) == sorted(["rollups", moved.name])


def test_a_link_where_the_rollups_folder_belongs_is_refused_and_nothing_is_written_through_it(
        tmp_path: Path, outside: Path) -> None:
    ledger, process = make_ledger(tmp_path)
    for t in OCTOBER[:2]:
        write(ledger, t, "SUCCEEDED")
    (process / "rollups").symlink_to(outside)
    before, ledger_before = tree(outside), tree(process)
    with pytest.raises(StorageError, match=r"rollups.* is a symbolic link") as raised:
        roll_up(ledger, P, BEFORE, "roll")
    assert raised.value.exit_code == 1 and "\n" not in str(raised.value)
    assert tree(outside) == before  # no lock, no month file written there
    assert tree(process) == ledger_before  # every instance still in its folder
    assert [status(ledger, P, t) for t in OCTOBER[:2]] == ["SUCCEEDED", "SUCCEEDED"]


def test_a_link_where_the_process_folder_belongs_is_refused_and_nothing_is_written_through_it(
        tmp_path: Path, outside: Path) -> None:
    ledger, process = make_ledger(tmp_path)
    write(ledger, OCTOBER[0], "SUCCEEDED")
    os.rename(process, outside / P)
    process.symlink_to(outside / P)
    before = tree(outside)
    with pytest.raises(StorageError, match=rf"{P}.* is a symbolic link"):
        roll_up(ledger, P, BEFORE, "roll")
    assert tree(outside) == before


def test_a_folder_where_the_months_rollup_file_belongs_is_one_sentence_and_the_folders_stay(tmp_path: Path) -> None:
    ledger, process = make_ledger(tmp_path)
    for t in OCTOBER[:2]:
        write(ledger, t, "SUCCEEDED")
    (process / "rollups" / "202610.json.gz").mkdir(parents=True)
    folders = sorted(p.name for p in process.iterdir())
    with pytest.raises((StorageError, CorruptRecordError)) as raised:
        roll_up(ledger, P, BEFORE, "roll")
    assert raised.value.exit_code == 1 and "\n" not in str(raised.value)
    assert "202610.json.gz" in str(raised.value)
    assert sorted(p.name for p in process.iterdir()) == folders  # nothing deleted
    assert (process / "rollups" / "202610.json.gz").is_dir()


@pytest.mark.parametrize("name", ["20261031T0000Z copy", "2026-10-31T00:00Z", "20261031T0000Z:old",
                                  "x" * 255, "20261031T0100Z" + "~" * 241])
def test_foreign_names_beside_the_instances_are_left_as_they_are(tmp_path: Path, name: str) -> None:
    ledger, process = make_ledger(tmp_path)
    for t in OCTOBER[:2]:
        write(ledger, t, "SUCCEEDED")
    (process / name).mkdir()
    (process / name / "instance.json").write_bytes(b"someone else's")
    report = roll_up(ledger, P, BEFORE, "roll")
    assert report.rolled == 2
    assert sorted(p.name for p in process.iterdir()) == sorted(["rollups", name])
    assert (process / name / "instance.json").read_bytes() == b"someone else's"


def test_a_process_name_at_the_255_byte_limit_is_rolled_up(tmp_path: Path) -> None:
    from toolkit.core.ledger.records import InstanceRecord

    ledger, _ = make_ledger(tmp_path)
    long_name = "p" * 255
    ledger.write_instance(InstanceRecord(process=long_name, cluster="primary", time=f"{OCTOBER[0]:%Y-%m-%dT%H:%MZ}",
                                         status="SUCCEEDED", attempts=0, run_id="r0",
                                         updated="2026-10-31T00:09:00Z"))
    assert roll_up(ledger, long_name, BEFORE, "roll").rolled == 1
    assert status(ledger, long_name, OCTOBER[0]) == "SUCCEEDED"
    assert ledger.folder_times(long_name) == set()


@pytest.mark.parametrize("spelling", ["file:{root}", "file://{root}/", "file:///{root}//"])
def test_every_spelling_of_the_root_rolls_up_the_same_instances_into_the_same_file(tmp_path: Path,
                                                                                   spelling: str) -> None:
    from tests.unit.ledger.ledger_support import cluster_yaml, load_clusters

    root = tmp_path / "root"
    plain = Ledger.of(LocalFileSystem(), local_cluster(tmp_path / "conf", root), clock=SetClock(BEFORE.timestamp()))
    for t in OCTOBER[:3]:
        write(plain, t, "SUCCEEDED")
    endpoint = spelling.format(root=str(root).lstrip("/") if spelling.startswith("file:///") else root)
    odd = load_clusters(tmp_path / "odd", {"primary": cluster_yaml("primary", endpoint,
                                                                   {"working": "/feed-toolkit/working"})})
    ledger = Ledger.of(LocalFileSystem(), odd.cluster("primary"), clock=SetClock(BEFORE.timestamp()))
    assert roll_up(ledger, P, BEFORE, "roll").rolled == 3
    process = root / "feed-toolkit" / "working" / "ledger" / "processes" / P
    assert sorted(p.name for p in process.iterdir()) == ["rollups"]
    assert read_rollup(plain.fs, plain.layout, P, "202610").times() == set(OCTOBER[:3])
    assert [status(plain, P, t) for t in OCTOBER[:3]] == ["SUCCEEDED"] * 3
