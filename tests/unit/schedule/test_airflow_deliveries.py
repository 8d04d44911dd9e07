"""The Airflow notifier's delivery records (toolkit/orchestration/schedule/airflow_events/deliveries.py) through the
record codec: the files of `airflow_deliveries/`, written by the hand-written encoder this replaced, read typed; a
claim, a form's record and the cursor written again byte for byte; a damaged one named."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolkit.core.ledger.records import CorruptRecordError
from toolkit.core.storage.local import LocalFileSystem
from toolkit.orchestration.schedule.airflow_events.deliveries import (
    DELIVERED,
    SKIPPED,
    Deliveries,
    DoneRecord,
    FormDelivered,
    FormRecord,
)

WRITTEN = Path(__file__).parent / "airflow_deliveries"
DELIVERED_ID = "20261121T100700000Z-run-1-0123abcd"
SKIPPED_ID = "20261121T100800000Z-run-1-4567ef01"


class _Layout:
    def __init__(self, root: Path) -> None:
        self.root = root

    def deliveries_folder(self, consumer: str) -> str:
        return f"file://{self.root}/{consumer}"


def deliveries(root: Path) -> Deliveries:
    return Deliveries(LocalFileSystem(), _Layout(root))  # type: ignore[arg-type]


@pytest.fixture()
def written(tmp_path: Path) -> Path:
    shutil.copytree(WRITTEN, tmp_path / "airflow")
    return tmp_path


def test_the_records_an_earlier_toolkit_wrote_read_typed(written: Path) -> None:
    kept = deliveries(written)
    claim = kept.read_claim(DELIVERED_ID, "partitioned")
    assert claim is not None and (claim.run_id, claim.claimed.isoformat()) == ("notify-1", "2026-11-21T10:07:00+00:00")
    assert kept.form_record(DELIVERED_ID, "partitioned") == FormRecord(
        DELIVERED_ID, "partitioned", 3, 41, "2026-11-21T10:00:00", "notify-1", "2026-11-21T10:07:01.123456Z")
    assert kept.read_done(DELIVERED_ID) == DoneRecord(
        DELIVERED_ID, "clicks", "primary", DELIVERED, "notify-1", time="2026-11-21T10:00Z", asset_id=3,
        asset_uri="file:///data/clicks", deliveries=[FormDelivered("partitioned", 41, "2026-11-21T10:00:00"),
                                                     FormDelivered("plain", 42, None)],
        delivered="2026-11-21T10:07:02Z")
    skipped = kept.read_done(SKIPPED_ID)
    assert skipped is not None and (skipped.status, skipped.reason, skipped.skipped, skipped.deliveries) == (
        SKIPPED, "Airflow has no asset with the URI file:///data/views (no DAG declares the asset views@primary)",
        "2026-11-21T10:08:02Z", [])
    assert kept.cursor() == SKIPPED_ID
    assert kept.done([DELIVERED_ID, SKIPPED_ID, "20261121T100900000Z-run-2-00000000"]) == {DELIVERED_ID, SKIPPED_ID}


def test_written_again_they_are_the_same_files_and_records(written: Path, tmp_path: Path) -> None:
    old, new = deliveries(written), deliveries(tmp_path / "new")
    assert new.claim(DELIVERED_ID, "partitioned", "notify-1", 1795255620.0) is True
    assert new.claim(DELIVERED_ID, "partitioned", "notify-2", 1795255621.0) is False  # claimed once
    form = old.form_record(DELIVERED_ID, "partitioned")
    assert form is not None
    new.write_form(form)
    new.move_cursor(SKIPPED_ID)
    bucket = "20261121/10"
    for name in (f"{bucket}/{DELIVERED_ID}~partitioned.claim", f"{bucket}/{DELIVERED_ID}~partitioned.json",
                 "cursor.json"):
        assert (tmp_path / "new/airflow" / name).read_bytes() == (WRITTEN / name).read_bytes(), name
    for event_id in (DELIVERED_ID, SKIPPED_ID):
        done = old.read_done(event_id)
        assert done is not None
        new.write_done(done)
        assert new.read_done(event_id) == done


@pytest.mark.parametrize(("name", "damage", "why"), [
    ("cursor.json", b'{"position": 7}', "the field 'position' is 7, not an event id"),
    (f"20261121/10/{DELIVERED_ID}.json", b'{"event_id": "x"}', "the field 'event_id' is 'x', not an event id"),
    (f"20261121/10/{DELIVERED_ID}~partitioned.claim", b'{"event_id": "' + DELIVERED_ID.encode() + b'"}',
     "the field 'form' is missing"),
])
def test_a_damaged_record_is_named_with_what_is_wrong(written: Path, name: str, damage: bytes, why: str) -> None:
    (written / "airflow" / name).write_bytes(damage)
    kept = deliveries(written)
    with pytest.raises(CorruptRecordError) as raised:
        kept.cursor() if name == "cursor.json" else kept.read_done(DELIVERED_ID) if name.endswith(".json") \
            else kept.read_claim(DELIVERED_ID, "partitioned")
    assert why in str(raised.value) and name in str(raised.value)


def test_a_claim_stamped_to_the_minute_reads_as_its_stamp_check_allows(written: Path) -> None:
    """The record's Stamp check lets a time to the minute through: it is read, not a traceback (found by a review)."""
    claim = written / "airflow/20261121/10" / f"{DELIVERED_ID}~partitioned.claim"
    claim.write_text(claim.read_text().replace('"2026-11-21T10:07:00Z"', '"2026-11-21T10:07Z"'))
    read = deliveries(written).read_claim(DELIVERED_ID, "partitioned")
    assert read is not None and read.claimed.isoformat() == "2026-11-21T10:07:00+00:00"
