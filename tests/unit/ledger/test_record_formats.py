"""Format versions of everything the toolkit persists: records written before versions existed (format 1, the
committed files of `records_v1/`) are still read, every record is written with its version, fields added later
are optional on reading, and a record of a newer format is refused with one sentence saying to upgrade."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolkit.core.ledger.control import Control
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.locks import HELD, LeaseDetails, LeaseLock
from toolkit.core.ledger.records import (
    FORMAT_VERSION,
    AttemptRecord,
    CorruptRecordError,
    DatasetEvent,
    InstanceRecord,
    LateCheck,
    NewerFormatError,
    PublishedOutput,
    ReadInput,
    Written,
    late_checks_json,
    parse_late_checks,
    to_json,
)
from toolkit.core.ledger.retention_runs import RetentionRecord
from toolkit.core.storage.local import LocalFileSystem, to_uri
from toolkit.errors import UsageError
from toolkit.services.runtime.run_record import write_record

V1 = Path(__file__).parent / "records_v1"
INPUTS = Written(ReadInput, [{"name": "clicks", "instances": [{"time": "2026-11-21T10:00Z", "available": True,
                                                               "fingerprint": {"digest": "ab", "files": 1,
                                                                               "bytes": 10}}]}])
OUTPUTS = Written(PublishedOutput, [{"name": "summary", "path": "file:///x/data/2026/11/21/10"}])


def v1(name: str) -> tuple[bytes, str]:
    path = to_uri(str(V1 / name))
    return (V1 / name).read_bytes(), path


def test_records_of_format_1_are_read_as_they_were_written() -> None:
    assert InstanceRecord.parse(*v1("instance.json")) == InstanceRecord(
        process="hourly-clicks-summary", cluster="primary", time="2026-11-21T10:00Z", status="SUCCEEDED",
        attempts=1, run_id="0123456789ab", updated="2026-11-21T10:06:30Z", started="2026-11-21T10:05:00Z",
        ended="2026-11-21T10:06:30Z", inputs=INPUTS, outputs=OUTPUTS, succeeded="2026-11-21T10:06:30Z")
    assert AttemptRecord.parse(*v1("attempt-001.json")) == AttemptRecord(
        process="hourly-clicks-summary", cluster="primary", time="2026-11-21T10:00Z", attempt=1,
        run_id="0123456789ab", kind="RUN", status="SUCCEEDED", started="2026-11-21T10:05:00Z",
        ended="2026-11-21T10:06:30Z", inputs=INPUTS, outputs=OUTPUTS, counters={"rows": 12})
    assert DatasetEvent.parse(*v1("event.json")) == DatasetEvent(
        feed="clicks-hourly-summary", cluster="primary", time="2026-11-21T10:00Z", run_id="0123456789ab",
        producer="hourly-clicks-summary", location="file:///x/data/clicks-hourly-summary/2026/11/21/10",
        published="2026-11-21T10:07:00Z", kind="published", fingerprint=None,
        event_id="20261121T100700000Z-0123456789ab-" + DatasetEvent.parse(*v1("event.json")).event_id[-8:])
    assert parse_late_checks(*v1("late-checks.json")) == [
        LateCheck("2026-11-21T11:00Z", "UNCHANGED"), LateCheck("2026-11-21T12:00Z", "CHANGED", ["clicks"],
                                                               "fedcba987654")]


def test_a_lease_and_a_switch_of_format_1_are_read() -> None:
    fs = LocalFileSystem()
    lease = LeaseLock(fs, to_uri(str(V1)), "lock", 60.0).current()
    assert lease is not None
    assert (lease.run_id, lease.expires, lease.state) == ("0123456789ab", 1_795_000_060.0, HELD)
    assert lease.details == LeaseDetails(process="hourly-clicks-summary", time="2026-11-21T10:00Z")
    switch = Control(fs, LedgerLayout(to_uri(str(V1)))).safemode()
    assert (switch.on, switch.since, switch.by, switch.reason) == (
        True, "2026-11-21T09:00:00Z", "ops@edge-1", "namenode upgrade")


def test_optional_fields_missing_from_an_older_record_take_their_defaults() -> None:
    """A release that adds a field with a default must still read the records written before it."""
    data, path = v1("instance.json")
    written = json.loads(data)
    for name in ("started", "ended", "error", "missing", "inputs", "outputs", "succeeded"):
        del written[name]
    record = InstanceRecord.parse(json.dumps(written).encode(), path)
    assert (record.started, record.ended, record.error, record.succeeded) == (None, None, None, None)
    assert (record.missing, record.inputs, record.outputs) == ([], Written(ReadInput), Written(PublishedOutput))
    checks = json.loads(v1("late-checks.json")[0])
    del checks[0]["changed"], checks[0]["run_id"]
    assert parse_late_checks(json.dumps(checks).encode(), path)[0] == LateCheck("2026-11-21T11:00Z", "UNCHANGED")


def test_a_required_field_is_still_required() -> None:
    data, path = v1("event.json")
    written = json.loads(data)
    del written["location"]
    with pytest.raises(CorruptRecordError, match="the field 'location' is missing"):
        DatasetEvent.parse(json.dumps(written).encode(), path)


def _lease_and_switch_files(tmp_path: Path) -> tuple[LocalFileSystem, Path]:
    folder = tmp_path / "ledger"
    shutil.copytree(V1, folder)
    return LocalFileSystem(), folder


def test_every_record_is_written_with_its_format_version(tmp_path: Path) -> None:
    assert FORMAT_VERSION == 1
    for name, cls in (("instance.json", InstanceRecord), ("attempt-001.json", AttemptRecord),
                      ("event.json", DatasetEvent)):
        record = cls.parse(*v1(name))
        assert json.loads(to_json(record))["format_version"] == getattr(cls, "FORMAT", FORMAT_VERSION)
        assert cls.parse(to_json(record), "x") == record
    checks = parse_late_checks(*v1("late-checks.json"))
    assert [item["format_version"] for item in json.loads(late_checks_json(checks))] == [1, 1]
    fs, folder = _lease_and_switch_files(tmp_path)
    lock = LeaseLock(fs, to_uri(str(folder / "taken")), "lock", 60.0)
    assert lock.try_acquire("run-2").taken
    assert json.loads((folder / "taken" / "lock.0").read_bytes())["format_version"] == FORMAT_VERSION
    control = Control(fs, LedgerLayout(to_uri(str(folder))))
    control.set_suspended("feed", "clicks", True, "2026-11-21T09:00:00Z", "ops")
    assert json.loads((folder / "control/suspended/feed/clicks").read_bytes())["format_version"] == FORMAT_VERSION
    write_record(fs, to_uri(str(folder / "retention.json")), RetentionRecord("clicks", "primary", "2026-11-21T10:00Z"))
    assert json.loads((folder / "retention.json").read_bytes())["format_version"] == FORMAT_VERSION


def _newer(data: bytes, version: int = 2) -> bytes:
    document = json.loads(data)
    if isinstance(document, list):
        return json.dumps([{**item, "format_version": version, "renamed": item.pop("result")}
                           for item in document]).encode()
    return json.dumps({**document, "format_version": version, "status": "SOMETHING_NEW"}).encode()


@pytest.mark.parametrize(("name", "read", "newest"), [
    ("instance.json", InstanceRecord.parse, FORMAT_VERSION),
    ("attempt-001.json", AttemptRecord.parse, FORMAT_VERSION),
    ("event.json", DatasetEvent.parse, DatasetEvent.FORMAT),
    ("late-checks.json", parse_late_checks, FORMAT_VERSION),
], ids=["instance", "attempt", "event", "late-checks"])
def test_a_record_of_a_newer_format_is_refused_saying_to_upgrade(name: str, read: Callable[[bytes, str], Any],
                                                                 newest: int) -> None:
    data, path = v1(name)
    with pytest.raises(NewerFormatError) as raised:
        read(_newer(data, newest + 1), path)
    message = str(raised.value)
    assert message == (f"The ledger record {path} was written by a newer toolkit (record format {newest + 1}; this "
                       f"toolkit reads formats up to {newest}): upgrade the toolkit on this machine, then call "
                       "again.")
    assert isinstance(raised.value, UsageError) and raised.value.exit_code == 2
    assert raised.value.path == path


def test_a_lease_and_a_switch_of_a_newer_format_are_refused(tmp_path: Path) -> None:
    fs, folder = _lease_and_switch_files(tmp_path)
    (folder / "lock.0").write_bytes(_newer((folder / "lock.0").read_bytes()))
    (folder / "control/safemode").write_bytes(_newer((folder / "control/safemode").read_bytes()))
    with pytest.raises(NewerFormatError, match=r"lock\.0 was written by a newer toolkit .*upgrade the toolkit"):
        LeaseLock(fs, to_uri(str(folder)), "lock", 60.0).current()
    with pytest.raises(NewerFormatError, match=r"control/safemode was written by a newer toolkit"):
        Control(fs, LedgerLayout(to_uri(str(folder)))).safemode()


@pytest.mark.parametrize("version", ["2", 0, -1, 1.5, True, None])
def test_a_format_version_that_is_no_version_is_damage(version: Any) -> None:
    data, path = v1("event.json")
    written = {**json.loads(data), "format_version": version}
    with pytest.raises(CorruptRecordError, match="the field 'format_version' is .*, not a format version"):
        DatasetEvent.parse(json.dumps(written).encode(), path)
