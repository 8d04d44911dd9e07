"""Frequencies: `minutes(n)`, `hours(n)`, `days(n)`, `months(n)`.

Minutes and hours are elapsed time; days and months are calendar units in the entity's time zone
(a daily instance stays at local midnight across DST). See `toolkit/core/el/README.md`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from toolkit.errors import UsageError


class TimeUnit(str, Enum):
    """The four units of Falcon's frequencies; `is_calendar` says whether it is counted in the zone."""

    MINUTES = "minutes"
    HOURS = "hours"
    DAYS = "days"
    MONTHS = "months"

    @property
    def is_calendar(self) -> bool:
        return self in (TimeUnit.DAYS, TimeUnit.MONTHS)


# n is a positive integer without leading zeros; blanks around the number are tolerated.
_FREQUENCY = re.compile(r"^\s*(minutes|hours|days|months)\(\s*([1-9][0-9]*)\s*\)\s*$")
FREQUENCY_PATTERN = r"^\s*(minutes|hours|days|months)\(\s*[1-9][0-9]*\s*\)\s*$"

_SECONDS = {TimeUnit.MINUTES: 60, TimeUnit.HOURS: 3600}


@dataclass(frozen=True, order=True)
class Frequency:
    """A count of one unit, such as `hours(1)`; immutable, hashable, printed in canonical form."""

    unit: TimeUnit
    count: int

    def __post_init__(self) -> None:
        if self.count < 1:
            raise UsageError(f"Frequency count must be a positive integer, not {self.count}.")

    @classmethod
    def parse(cls, text: str) -> Frequency:
        """Parse `hours(1)`; anything else raises UsageError with the accepted forms."""
        match = _FREQUENCY.match(text) if isinstance(text, str) else None
        if match is None:
            raise UsageError(
                f"Invalid frequency {text!r}: write minutes(n), hours(n), days(n) or months(n) "
                "with n a positive integer without leading zeros."
            )
        return cls(TimeUnit(match.group(1)), int(match.group(2)))

    @property
    def elapsed_seconds(self) -> int | None:
        """Seconds of an elapsed-time frequency; None for days and months (calendar units)."""
        per_unit = _SECONDS.get(self.unit)
        return None if per_unit is None else per_unit * self.count

    def approx_minutes(self) -> int:
        """A nominal length in minutes for comparisons (days = 1440, months = 31 days, as Falcon)."""
        per_unit = {TimeUnit.MINUTES: 1, TimeUnit.HOURS: 60, TimeUnit.DAYS: 1440, TimeUnit.MONTHS: 44640}
        return per_unit[self.unit] * self.count

    def __str__(self) -> str:
        return f"{self.unit.value}({self.count})"
