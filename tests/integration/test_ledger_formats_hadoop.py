"""The ledger files of format 1 (written before records carried a version) read through the Hadoop FileSystem
API in the Spark JVM, as entrypoints read them on a cluster; a newer format is refused there too."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.records import FORMAT_VERSION, NewerFormatError
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import to_uri

V1 = Path(__file__).resolve().parents[1] / "unit" / "ledger" / "records_v1"
T = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)
PROCESS, FEED = "hourly-clicks-summary", "clicks-hourly-summary"


def _ledger_of_format_1(root: Path) -> None:
    """The committed format-1 files laid out where the ledger keeps them."""
    instance = root / "processes" / PROCESS / "20261121T1000Z"
    instance.mkdir(parents=True)
    for name in ("instance.json", "attempt-001.json", "late-checks.json", "lock.0"):
        shutil.copyfile(V1 / name, instance / name)
    (root / "events" / FEED / "20261121T1000Z").mkdir(parents=True)
    shutil.copyfile(V1 / "event.json", root / "events" / FEED / "20261121T1000Z" / "0123456789ab.json")
    shutil.copytree(V1 / "control", root / "control")


def test_format_1_is_read_and_a_newer_format_refused_through_the_jvm(spark, tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    root = tmp_path / "ledger"
    _ledger_of_format_1(root)
    ledger = Ledger(HadoopFileSystem(spark), LedgerLayout(to_uri(str(root))))

    record = ledger.instance(PROCESS, T)
    assert record is not None and (record.status, record.run_id, record.succeeded) == (
        "SUCCEEDED", "0123456789ab", "2026-11-21T10:06:30Z")
    assert [(a.attempt, a.status, a.counters) for a in ledger.attempts(PROCESS, T)] == [(1, "SUCCEEDED", {"rows": 12})]
    assert [(e.producer, e.location) for e in ledger.events(FEED, T)] == [
        (PROCESS, "file:///x/data/clicks-hourly-summary/2026/11/21/10")]
    assert [(c.at, c.result) for c in ledger.late_checks(PROCESS, T)] == [
        ("2026-11-21T11:00Z", "UNCHANGED"), ("2026-11-21T12:00Z", "CHANGED")]
    lease = ledger.instance_lock(PROCESS, T).current()
    assert lease is not None and (lease.run_id, lease.expires) == ("0123456789ab", 1_795_000_060.0)
    assert ledger.control.safemode().reason == "namenode upgrade"

    ledger.write_instance(record)  # written back: the current format, with its version
    written = root / "processes" / PROCESS / "20261121T1000Z" / "instance.json"
    assert json.loads(written.read_text())["format_version"] == FORMAT_VERSION

    newer = {**json.loads(written.read_text()), "format_version": FORMAT_VERSION + 1}
    written.write_text(json.dumps(newer))
    with pytest.raises(NewerFormatError, match=f"{written.name} was written by a newer toolkit .* upgrade the toolkit"):
        ledger.instance(PROCESS, T)
