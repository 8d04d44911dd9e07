"""The ledger's record of what was delivered to Airflow, so that a retry never posts twice:

    deliveries/airflow/<yyyyMMdd>/<HH>/<event id>~<form>.claim   created exclusively right before the POST
    deliveries/airflow/<yyyyMMdd>/<HH>/<event id>~<form>.json    written after Airflow answered 2xx (its event id)
    deliveries/airflow/<yyyyMMdd>/<HH>/<event id>.json           the event is done: delivered (every form) or skipped
    deliveries/airflow/cursor.json                              every event up to this id is done

The bucket is the UTC hour of the event id's stamp, as in the journal. A form is one asset event for one ledger
event: `partitioned` (with the instance as partition key) or `plain` (without: Airflow 3.3 gives an event with a
partition key to partitioned DAGs only, and one without to the others only). A claim without its record is a run
killed, or an Airflow gone silent, between the POST and the record: the next call looks the event up in Airflow
before posting it again. Records carry no credentials.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Annotated

from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.record_files import RecordFile
from toolkit.core.ledger.records import (
    EventId,
    Stamp,
    event_id_ms,
    parse_record,
    record_stamp,
    to_json,
    wall_clock_stamp,
)
from toolkit.core.storage.filesystem import FileSystem

CONSUMER = "airflow"
DELIVERED, SKIPPED = "delivered", "skipped"


@dataclass(frozen=True)
class Claim:
    """A claim of one form of one event: by which notifier run, when (the wall clock of its host)."""

    run_id: str
    claimed: datetime


@dataclass(frozen=True)
class ClaimRecord:
    """`<event id>~<form>.claim`: the claim as its file holds it."""

    event_id: EventId
    form: str
    run_id: str
    claimed: Stamp


@dataclass(frozen=True)
class FormRecord:
    """`<event id>~<form>.json`: one form of the event posted, with the asset event Airflow made of it."""

    event_id: EventId
    form: str
    asset_id: int
    airflow_event_id: int | None
    partition_key: str | None
    run_id: str
    airflow_timestamp: str | None = None


@dataclass(frozen=True)
class FormDelivered:
    """One form of a delivered event, as its done record lists it."""

    form: str
    airflow_event_id: int | None
    partition_key: str | None


@dataclass(frozen=True)
class DoneRecord:
    """`<event id>.json`: the event is done, `delivered` (every form, on the asset `asset_id`) or `skipped`
    (`reason`); by which run, when (`delivered` or `skipped`, as it went)."""

    event_id: EventId
    feed: str
    cluster: str
    status: Annotated[str, (DELIVERED, SKIPPED)]
    run_id: str
    time: str | None = None
    asset_id: int | None = None
    asset_uri: str | None = None
    deliveries: list[FormDelivered] = field(default_factory=list)
    delivered: Stamp | None = None
    reason: str | None = None
    skipped: Stamp | None = None


@dataclass(frozen=True)
class DeliveryCursor:
    """`cursor.json`: every event up to `position` is done."""

    position: EventId | None


class Deliveries:
    def __init__(self, fs: FileSystem, layout: LedgerLayout) -> None:
        self.fs, self.root = fs, layout.deliveries_folder(CONSUMER)

    def bucket(self, event_id: str) -> str:
        hour = datetime.fromtimestamp(event_id_ms(event_id) // 1000, timezone.utc)
        return f"{self.root}/{hour:%Y%m%d}/{hour:%H}"

    def done(self, event_ids: Iterable[str]) -> set[str]:
        """Those of `event_ids` that are done; lists each hour bucket they fall in once."""
        wanted: dict[str, set[str]] = {}
        for identifier in event_ids:
            wanted.setdefault(self.bucket(identifier), set()).add(identifier)
        found: set[str] = set()
        for folder, ids in wanted.items():
            if self.fs.exists(folder):
                names = {status.name for status in self.fs.list(folder)}
                found.update(i for i in ids if f"{i}.json" in names)
        return found

    def claim(self, event_id: str, form: str, run_id: str, now: float) -> bool:
        """Claim the form of the event for this run; False when it was claimed before (by a run killed after it,
        or one whose POST got no answer)."""
        record = ClaimRecord(event_id, form, run_id, wall_clock_stamp(now))
        return self.fs.create_exclusive(self._path(event_id, form, "claim"), to_json(record))

    def read_claim(self, event_id: str, form: str) -> Claim | None:
        path = self._path(event_id, form, "claim")
        data = self.fs.read_if_exists(path)
        if data is None:
            return None
        if not data:  # its creator was killed between the create and the write: claimed now, at the latest
            return Claim("unknown", datetime.now(timezone.utc))
        record: ClaimRecord = parse_record(ClaimRecord, data, path)
        return Claim(record.run_id, record_stamp(record.claimed))  # either spelling its Stamp check lets through

    def form_record(self, event_id: str, form: str) -> FormRecord | None:
        return self._form_file(event_id, form).read()

    def write_form(self, record: FormRecord) -> None:
        self._form_file(record.event_id, record.form).write(record)

    def write_done(self, record: DoneRecord) -> None:
        self._done_file(record.event_id).write(record)

    def read_done(self, event_id: str) -> DoneRecord | None:
        return self._done_file(event_id).read()

    def cursor(self) -> str | None:
        """The id up to which every event is done, or None before the first call."""
        record = self._cursor_file().read()
        return None if record is None else record.position

    def move_cursor(self, position: str) -> None:
        self._cursor_file().write(DeliveryCursor(position))

    def _form_file(self, event_id: str, form: str) -> RecordFile[FormRecord]:
        return RecordFile(self.fs, self._path(event_id, form, "json"), FormRecord)

    def _done_file(self, event_id: str) -> RecordFile[DoneRecord]:
        return RecordFile(self.fs, f"{self.bucket(event_id)}/{event_id}.json", DoneRecord)

    def _cursor_file(self) -> RecordFile[DeliveryCursor]:
        return RecordFile(self.fs, f"{self.root}/cursor.json", DeliveryCursor)

    def _path(self, event_id: str, form: str, suffix: str) -> str:
        return f"{self.bucket(event_id)}/{event_id}~{form}.{suffix}"

