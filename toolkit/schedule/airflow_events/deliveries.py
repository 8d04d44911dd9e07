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

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from toolkit.ledger.layout import LedgerLayout
from toolkit.ledger.records import (
    CorruptRecordError,
    check_format,
    event_id_ms,
    parse_json,
    parse_wall_clock_stamp,
    versioned,
    wall_clock_stamp,
)
from toolkit.storage.filesystem import FileSystem

CONSUMER = "airflow"
DELIVERED, SKIPPED = "delivered", "skipped"


@dataclass(frozen=True)
class Claim:
    """A claim of one form of one event: by which notifier run, when (the wall clock of its host)."""

    run_id: str
    claimed: datetime


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
        document = versioned({"event_id": event_id, "form": form, "run_id": run_id, "claimed": wall_clock_stamp(now)})
        return self.fs.create_exclusive(self._path(event_id, form, "claim"), _encode(document))

    def read_claim(self, event_id: str, form: str) -> Claim | None:
        path = self._path(event_id, form, "claim")
        data = self.fs.read_if_exists(path)
        if data is None:
            return None
        if not data:  # its creator was killed between the create and the write: claimed now, at the latest
            return Claim("unknown", datetime.now(timezone.utc))
        document = _checked(data, path)
        try:
            return Claim(str(document["run_id"]), parse_wall_clock_stamp(str(document["claimed"])))
        except (KeyError, ValueError) as err:
            raise CorruptRecordError(path, f"not a claim: {err}") from None

    def form_record(self, event_id: str, form: str) -> dict[str, Any] | None:
        path = self._path(event_id, form, "json")
        data = self.fs.read_if_exists(path)
        return None if data is None else _checked(data, path)

    def write_form(self, event_id: str, form: str, record: dict[str, Any]) -> None:
        self.fs.write_atomically(self._path(event_id, form, "json"), _encode(versioned(record)))

    def write_done(self, event_id: str, record: dict[str, Any]) -> None:
        self.fs.write_atomically(f"{self.bucket(event_id)}/{event_id}.json", _encode(versioned(record)))

    def read_done(self, event_id: str) -> dict[str, Any] | None:
        path = f"{self.bucket(event_id)}/{event_id}.json"
        data = self.fs.read_if_exists(path)
        return None if data is None else _checked(data, path)

    def cursor(self) -> str | None:
        """The id up to which every event is done, or None before the first call."""
        path = f"{self.root}/cursor.json"
        data = self.fs.read_if_exists(path)
        if data is None:
            return None
        position = _checked(data, path).get("position")
        if position is not None and not isinstance(position, str):
            raise CorruptRecordError(path, f"the field 'position' is {position!r}, not an event id")
        return position

    def move_cursor(self, position: str) -> None:
        self.fs.write_atomically(f"{self.root}/cursor.json", _encode(versioned({"position": position})))

    def _path(self, event_id: str, form: str, suffix: str) -> str:
        return f"{self.bucket(event_id)}/{event_id}~{form}.{suffix}"


def _encode(document: dict[str, Any]) -> bytes:
    return (json.dumps(document, indent=2, sort_keys=True) + "\n").encode()


def _checked(data: bytes, path: str) -> dict[str, Any]:
    document = parse_json(data, path)
    if not isinstance(document, dict):
        raise CorruptRecordError(path, "it is not a JSON object")
    check_format(document, path)
    return document
