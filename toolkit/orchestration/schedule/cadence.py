"""When a scheduled call is due: the instants of a grid (`anchor + k * frequency` in a zone), which is the grid of
the entity's instances for a process and for a feed's database import and export (`instance_cadence`), shifted by
the target's delay for replication, and Falcon's cadence for retention (toolkit/core/instances/retention_cadence.py).
The scheduler's own expression of it (cron, an Oozie coordinator, an Airflow timetable) is the formats' business;
every format starts from this record."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from toolkit.core.el.frequency import Frequency
from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.model import Validity

# The anchor of a cadence that only the clock sets (the data-trigger sweep every minute, the SLA check).
CLOCK = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Cadence:
    """Every `frequency` from `anchor` (UTC, on the grid) in `timezone`; `end` (exclusive, UTC) None when open."""

    frequency: Frequency
    anchor: datetime
    timezone: str = "UTC"
    end: datetime | None = None

    @property
    def grid(self) -> InstanceGrid:
        return InstanceGrid(self.anchor, self.frequency, resolve_zone(self.timezone), self.end)

    def describe(self) -> str:
        zone = "" if self.timezone == "UTC" else f" in {self.timezone}"
        start = "" if self.anchor == CLOCK else f" from {format_timestamp(self.anchor)}"
        return f"every {self.frequency}{start}{zone}"



def instance_cadence(frequency: Frequency, validity: Validity, timezone: str) -> Cadence:
    """Every instance of an entity on a cluster: its frequency from its validity start there, in its zone, up to
    (not including) its validity end: the grid of toolkit/core/instances/grids.py, and the start, end, frequency and
    zone of Falcon's coordinator of a process, of a feed's import and of its export."""
    return Cadence(frequency, validity.start, timezone, validity.end)
