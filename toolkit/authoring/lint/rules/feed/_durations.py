"""Comparing two durations written as frequencies (a retention limit and a cut-off, slaLow and slaHigh).

Minutes, hours and days are compared exactly (a day counts 24 hours; the hour a DST day gains or loses
is ignored). Months against months compare their counts, exactly. Months against the other units cannot
be exact: `months(n)` spans between the fewest and the most days that n consecutive calendar months
have (28 to 31 days for one month, 365 to 366 for twelve), so the comparison gives one of three verdicts:

- LONGER_OR_EQUAL: `a >= b` whatever the months;
- SHORTER: `a < b` for every month, or by Falcon's own measure (a month counted as 31 days,
  `Frequency.approx_minutes`), so that what Falcon refused is refused here too: an error;
- SOMETIMES_SHORTER: `a < b` only in some months (`months(1)` against `days(30)`): Falcon accepted it, we
  warn, and the message says the comparison is approximate.
"""

from __future__ import annotations

import calendar
from enum import Enum
from functools import lru_cache

from toolkit.authoring.lint.rule import Finding
from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.entities.model import Feed
from toolkit.core.entities.problems import Severity

MINUTES_PER_DAY = 1440
_CYCLE_YEARS = 400  # the Gregorian calendar repeats every 400 years
_CYCLE_MONTHS = _CYCLE_YEARS * 12
_CYCLE_DAYS = 146097
_MONTH_LENGTHS = tuple(
    calendar.monthrange(2000 + index // 12, index % 12 + 1)[1] for index in range(_CYCLE_MONTHS)
)


class Verdict(Enum):
    LONGER_OR_EQUAL = "longer or equal"
    SHORTER = "shorter"
    SOMETIMES_SHORTER = "sometimes shorter"


@lru_cache(maxsize=1024)
def month_days(count: int) -> tuple[int, int]:
    """The fewest and the most days of `count` consecutive calendar months (one pass over a 400-year cycle)."""
    cycles, rest = divmod(count, _CYCLE_MONTHS)
    base = cycles * _CYCLE_DAYS
    if rest == 0:
        return base, base
    window = sum(_MONTH_LENGTHS[:rest])
    low = high = window
    for start in range(1, _CYCLE_MONTHS):
        window += _MONTH_LENGTHS[(start + rest - 1) % _CYCLE_MONTHS] - _MONTH_LENGTHS[start - 1]
        low, high = min(low, window), max(high, window)
    return base + low, base + high


def bounds(duration: Frequency) -> tuple[int, int]:
    """The shortest and the longest this duration can be, in minutes."""
    if duration.unit is TimeUnit.MONTHS:
        low, high = month_days(duration.count)
        return low * MINUTES_PER_DAY, high * MINUTES_PER_DAY
    minutes = duration.approx_minutes()
    return minutes, minutes


def is_approximate(a: Frequency, b: Frequency) -> bool:
    """True when one is in months and the other is not: the comparison depends on which months."""
    return (a.unit is TimeUnit.MONTHS) != (b.unit is TimeUnit.MONTHS)


def at_least(a: Frequency, b: Frequency) -> Verdict:
    """Whether duration `a` is at least duration `b` (see the module docstring)."""
    if not is_approximate(a, b):
        # Same kind of unit: approx_minutes is linear in the count, so this compares exactly.
        return Verdict.LONGER_OR_EQUAL if a.approx_minutes() >= b.approx_minutes() else Verdict.SHORTER
    (a_low, a_high), (b_low, b_high) = bounds(a), bounds(b)
    if a_high < b_low or a.approx_minutes() < b.approx_minutes():
        return Verdict.SHORTER
    if a_low < b_high:
        return Verdict.SOMETIMES_SHORTER
    return Verdict.LONGER_OR_EQUAL


def in_days(duration: Frequency) -> str:
    """`months(1)` -> `28 to 31 days`; other units -> '' (they need no explanation)."""
    if duration.unit is not TimeUnit.MONTHS:
        return ""
    low, high = month_days(duration.count)
    return f"{low} to {high} days" if low != high else f"{low} days"


def approximate_note(a: Frequency, b: Frequency) -> str:
    """The words a message adds when it compares months with another unit, else ''."""
    if not is_approximate(a, b):
        return ""
    months = a if a.unit is TimeUnit.MONTHS else b
    return f" (comparing months with days is approximate: {months} is {in_days(months)})"


def at_least_value(minimum: Frequency, unit_of: Frequency) -> str:
    """What to write so that a value in the unit of `unit_of` is at least `minimum` in every month:
    `minimum` itself, plus the equivalent in months or days when the units differ."""
    if not is_approximate(minimum, unit_of):
        return str(minimum)
    if minimum.unit is TimeUnit.MONTHS:
        return f"{minimum} or days({month_days(minimum.count)[1]})"
    needed = -(-bounds(minimum)[1] // MINUTES_PER_DAY)  # whole days, rounded up
    count = max(1, -(-needed // 31))
    while month_days(count)[0] < needed:
        count += 1
    return f"{minimum} or months({count})"


def limit_shorter_than(entity: Feed, index: int, other: Frequency, other_field: str, consequence: str,
                       in_some_months: str) -> Finding | None:
    """The finding of a cluster's retention limit that is shorter than `other` (error), or shorter only in
    the shorter months (warning); None when the limit is long enough. The last two say what would happen
    to instances, always and in the shorter months; None too for a cluster without retention."""
    cluster = entity.clusters[index]
    if cluster.retention is None:
        return None
    limit = cluster.retention.limit
    verdict = at_least(limit, other)
    if verdict is Verdict.LONGER_OR_EQUAL:
        return None
    field = f"clusters[{index}].retention.limit {limit}"
    wanted = at_least_value(other, limit)
    if verdict is Verdict.SHORTER:
        message = (f"{field} on cluster '{cluster.name}' is shorter than {other_field} {other}"
                   f"{approximate_note(limit, other)}: {consequence}; give a limit of at least {wanted}.")
        severity = None
    else:
        months = limit if in_days(limit) else other
        message = (f"{field} on cluster '{cluster.name}' is shorter than {other_field} {other} in the shorter "
                   f"months (approximate: {months} is {in_days(months)}), so {in_some_months}; "
                   f"give a limit of at least {wanted}.")
        severity = Severity.WARNING
    return Finding(entity, message, ("clusters", index, "retention", "limit"), severity=severity)
