"""Java's names of a time zone (`z`, `zzzz` in SimpleDateFormat), which Python has no copy of.

The names are the JDK's locale data (CLDR, and the JDK's older names where CLDR has no abbreviation: Asia/Dubai
is `GST`, not tz's `+04`), copied from JDK 17 for Locale.US into `java_zone_names.py`. A zone has one pair of
names whatever the date (India in 1943 is `IDT`, not tz's `+0630`); zones without a name are `GMT+hh:mm` in the
table (Etc/GMT+5 is `GMT-05:00`), and a zone Java does not know is written so from its offset. Other JDKs' names
differ (JDK 8 had no CLDR names); we keep JDK 17's.

Whether a time is daylight time is Java's too: Java reads tz's "rearguard" form, in which negative DST does not
exist. In the few zone periods where tz has negative DST (the zones tz's own ziguard.awk converts), the lower
offset is standard time there and the higher one daylight time: Dublin's summer is `IST`, daylight.
"""

from __future__ import annotations

from datetime import datetime, timezone

from toolkit.core.el.java_zone_names import ZONE_NAMES

UTC = timezone.utc
_DUBLIN = (datetime(1968, 10, 26, 23, tzinfo=UTC), None, 0)  # zone line "1 IE IST/GMT" (1968 Oct 27) on
_MOROCCO = (datetime(2018, 10, 28, 2, tzinfo=UTC), None, 0)  # zone line "1 M %z" (2018 Oct 28 3:00) on
_PRAGUE = (datetime(1946, 12, 1, 2, tzinfo=UTC), datetime(1947, 2, 23, 2, tzinfo=UTC), 0)  # "1 -1 GMT"
# zone -> (start, end or None, standard offset in seconds) of its period with negative DST in tz
_REARGUARD_STANDARD: dict[str, tuple[datetime, datetime | None, int]] = {
    "Europe/Dublin": _DUBLIN,
    "Eire": _DUBLIN,
    "Africa/Windhoek": (datetime(1990, 3, 20, 22, tzinfo=UTC), None, 3600),  # zone line "2 NA %s" (1990 Mar 21) on
    "Africa/Casablanca": _MOROCCO,
    "Africa/El_Aaiun": _MOROCCO,
    "Europe/Prague": _PRAGUE,
    "Europe/Bratislava": _PRAGUE,
}


def _key(t: datetime) -> str | None:
    key = getattr(t.tzinfo, "key", None)
    return key if key else ("UTC" if t.tzinfo is UTC else None)


def _offset_seconds(t: datetime) -> int:
    offset = t.utcoffset()
    return int(offset.total_seconds()) if offset is not None else 0


def is_daylight(t: datetime) -> bool:
    """Java's DST flag of an aware time (see the module's docstring)."""
    period = _REARGUARD_STANDARD.get(_key(t) or "")
    if period is not None:
        start, end, standard = period
        if start <= t and (end is None or t < end):
            return _offset_seconds(t) > standard
    return bool(t.dst())  # tz's flag; zoneinfo's amount may be negative (Kyiv's 1941 CEST is -1 hour from MSK)


def zone_name(t: datetime, long: bool) -> str:
    """What SimpleDateFormat writes for `zzzz` (long) or `z` for an aware time in its zone."""
    names = ZONE_NAMES.get(_key(t) or "")
    if names is None:
        seconds = _offset_seconds(t)
        hours, minutes = divmod(abs(seconds) // 60, 60)
        return f"GMT{'-' if seconds < 0 else '+'}{hours:02d}:{minutes:02d}"
    return names[(2 if is_daylight(t) else 0) + (0 if long else 1)]
