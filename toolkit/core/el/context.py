"""What an EL expression is evaluated against: the nominal time, the zone, and for `latest`/`future`
the feed's grid and the instances that are available (at run time they come from storage)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.timezones import UTC


@dataclass(frozen=True)
class ELContext:
    """The nominal time is passed in, never read from the clock: evaluations are reproducible."""

    nominal: datetime
    zone: ZoneInfo = ZoneInfo("UTC")
    grid: InstanceGrid | None = None
    available: tuple[datetime, ...] | None = None

    def __post_init__(self) -> None:
        if self.nominal.tzinfo is None:
            raise ValueError("ELContext.nominal must be an aware datetime")
        object.__setattr__(self, "nominal", self.nominal.astimezone(UTC))
