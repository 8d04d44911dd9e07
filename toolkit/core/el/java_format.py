"""`formatTime(t, 'pattern')` with Java SimpleDateFormat patterns (`yyyy-MMM-dd`, `yyyyMMddHH` ...),
so that Falcon workflows' property values keep meaning what they meant.

Falcon formatted with `new SimpleDateFormat(pattern)` in the JVM's default locale, en_US on a cluster, so the
locale-dependent letters follow Locale.US, checked against the JVM by tests/integration/el/:
- names (`MMM`, `EEEE`, `a`, `G`) are English;
- weeks (`w`, `W`, `Y`) start on Sunday and week 1 is the week of January 1st (so December 31st may be in
  week 1 of the next week-year);
- zone names (`z`, `zzzz`) are the JDK's, see `java_zones.py`.
Offsets and DST flags are Python's IANA database's, as everywhere in the time engine. Java's legacy
`java.util.TimeZone` differs where its copy of the database does (before 1900 it keeps no history; other tz
versions; zones it links to others, which Debian's tzdata keeps apart), and counts days before 1582-10-15 in the
Julian calendar; we keep the IANA offsets and the Gregorian calendar there.
"""

from __future__ import annotations

from calendar import isleap
from collections.abc import Callable
from datetime import datetime

from toolkit.core.el.java_zones import zone_name
from toolkit.errors import UsageError

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _number(value: int, width: int) -> str:
    return str(value).zfill(width)


def _text(names: tuple[str, ...], index: int, width: int) -> str:
    return names[index] if width >= 4 else names[index][:3]


def _month(t: datetime, width: int) -> str:
    return _text(_MONTHS, t.month - 1, width) if width >= 3 else _number(t.month, width)


def _offset(t: datetime, width: int, iso: bool) -> str:
    offset = t.utcoffset()
    seconds = int(offset.total_seconds()) if offset is not None else 0
    if iso and seconds == 0:
        return "Z"
    sign = "-" if seconds < 0 else "+"
    hours, minutes = divmod(abs(seconds) // 60, 60)
    if iso and width == 1:
        return f"{sign}{hours:02d}"
    if iso and width >= 3:
        return f"{sign}{hours:02d}:{minutes:02d}"
    return f"{sign}{hours:02d}{minutes:02d}"


def _sunday_weekday(t: datetime) -> int:
    """Days since the last Sunday (Locale.US weeks start on Sunday)."""
    return (t.weekday() + 1) % 7


def _week_of_month(t: datetime) -> int:
    first = (_sunday_weekday(t) - (t.day - 1)) % 7
    return (t.day - 1 + first) // 7 + 1


def _week_and_year(t: datetime) -> tuple[int, int]:
    """Locale.US week of year and week-year: week 1 is the Sunday-to-Saturday week holding January 1st."""
    day = t.timetuple().tm_yday
    first = (_sunday_weekday(t) - (day - 1)) % 7
    length = 366 if isleap(t.year) else 365
    if day - _sunday_weekday(t) + 6 > length and (first + length) % 7 != 0:
        return 1, t.year + 1  # this week holds next January 1st
    return (day - 1 + first) // 7 + 1, t.year


def _year_number(year: int, width: int) -> str:
    return _number(year % 100, 2) if width == 2 else _number(year, width)


_LETTERS: dict[str, Callable[[datetime, int], str]] = {
    "G": lambda t, n: "AD",
    "y": lambda t, n: _year_number(t.year, n),
    "Y": lambda t, n: _year_number(_week_and_year(t)[1], n),
    "w": lambda t, n: _number(_week_and_year(t)[0], n),
    "W": lambda t, n: _number(_week_of_month(t), n),
    "F": lambda t, n: _number((t.day - 1) // 7 + 1, n),
    "M": _month,
    "L": _month,
    "d": lambda t, n: _number(t.day, n),
    "D": lambda t, n: _number(t.timetuple().tm_yday, n),
    "E": lambda t, n: _text(_DAYS, t.weekday(), n),
    "u": lambda t, n: _number(t.isoweekday(), n),
    "a": lambda t, n: "AM" if t.hour < 12 else "PM",
    "H": lambda t, n: _number(t.hour, n),
    "k": lambda t, n: _number(t.hour or 24, n),
    "K": lambda t, n: _number(t.hour % 12, n),
    "h": lambda t, n: _number(t.hour % 12 or 12, n),
    "m": lambda t, n: _number(t.minute, n),
    "s": lambda t, n: _number(t.second, n),
    "S": lambda t, n: _number(t.microsecond // 1000, n),
    "z": lambda t, n: zone_name(t, long=n >= 4),
    "Z": lambda t, n: _offset(t, n, iso=False),
    "X": lambda t, n: _offset(t, n, iso=True),
}


def _quoted(pattern: str, i: int, out: list[str]) -> int:
    """Copy the literal starting with the quote at i to `out`; `''` is one quote, inside or outside."""
    if pattern.startswith("''", i):
        out.append("'")
        return i + 2
    j = i + 1
    while j < len(pattern):
        if pattern.startswith("''", j):
            out.append("'")
            j += 2
        elif pattern[j] == "'":
            return j + 1
        else:
            out.append(pattern[j])
            j += 1
    raise UsageError(f"Unclosed quote in time pattern {pattern!r}: close the literal text with '.")


def format_java(t: datetime, pattern: str) -> str:
    """Format an aware datetime (already in the wanted zone) with a SimpleDateFormat pattern."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "'":
            i = _quoted(pattern, i, out)
            continue
        if char.isascii() and char.isalpha():
            run = i
            while run < len(pattern) and pattern[run] == char:
                run += 1
            formatter = _LETTERS.get(char)
            if formatter is None:
                raise UsageError(
                    f"Unsupported letter {char!r} in time pattern {pattern!r}: use "
                    + " ".join(sorted(_LETTERS)) + ", and quote literal text with '."
                )
            if char == "X" and run - i > 3:
                raise UsageError(
                    f"Invalid offset {pattern[i:run]!r} in time pattern {pattern!r}: use X, XX or XXX (as Java does)."
                )
            out.append(formatter(t, run - i))
            i = run
            continue
        out.append(char)
        i += 1
    return "".join(out)
