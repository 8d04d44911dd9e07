"""`formatTime(t, 'pattern')` with Java SimpleDateFormat patterns (`yyyy-MMM-dd`, `yyyyMMddHH` ...),
so that Falcon workflows' property values keep meaning what they meant.

English names, as Java's default locale on a cluster usually gives. Pattern letters that depend on
locale week rules (w, W, Y, F) are refused rather than guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from toolkit.errors import UsageError

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _number(value: int, width: int) -> str:
    return str(value).zfill(width)


def _year(t: datetime, width: int) -> str:
    return _number(t.year % 100, 2) if width == 2 else _number(t.year, width)


def _text(names: tuple[str, ...], index: int, width: int) -> str:
    return names[index] if width >= 4 else names[index][:3]


def _month(t: datetime, width: int) -> str:
    return _text(_MONTHS, t.month - 1, width) if width >= 3 else _number(t.month, width)


def _offset(t: datetime, width: int, iso: bool) -> str:
    seconds = int(t.utcoffset().total_seconds()) if t.utcoffset() is not None else 0
    if iso and seconds == 0:
        return "Z"
    sign = "-" if seconds < 0 else "+"
    hours, minutes = divmod(abs(seconds) // 60, 60)
    if iso and width == 1:
        return f"{sign}{hours:02d}"
    if iso and width >= 3:
        return f"{sign}{hours:02d}:{minutes:02d}"
    return f"{sign}{hours:02d}{minutes:02d}"


_LETTERS: dict[str, Callable[[datetime, int], str]] = {
    "G": lambda t, n: "AD",
    "y": _year,
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
    "z": lambda t, n: t.tzname() or "UTC",
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
            out.append(formatter(t, run - i))
            i = run
            continue
        out.append(char)
        i += 1
    return "".join(out)
