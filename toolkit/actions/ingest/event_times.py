"""A record's event time as an instant: what partitions a streamed record, so it must not depend on the Spark
session's time zone, only on the text and the feed's time zone.

ISO 8601 as `yyyy-MM-dd[(T| )HH:mm[:ss[.f{1,6}]][Z|±HH[:]mm|±HH]]`: a time with an offset (or Z) is taken as
is; one without is a wall-clock time in the feed's zone, and a date is its midnight there. A wall-clock time in
a DST gap is moved forward by the gap, one in an overlap is the earlier instant (java.time's `atZone`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import Column

_DATE = r"\d{4}-\d{2}-\d{2}"
_TIME = r"[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?"
_OFFSET = r"(?:Z|[+-]\d{2}(?::?\d{2})?)"
ISO_8601 = f"^{_DATE}(?:{_TIME}{_OFFSET}?)?$"
_WITH_OFFSET = f"^{_DATE}{_TIME}{_OFFSET}$"
_USUAL = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"


def instant(text: Column, zone: str) -> Column:
    """The instant `text` stands for (null when it is no ISO 8601 time or no real date)."""
    from pyspark.sql import functions as F

    # The usual spelling, `yyyy-MM-ddTHH:mm:ssZ`, by one small regular expression (ASCII digits only: Java's \d),
    # then Spark's cast: four times cheaper than checking its characters one substring at a time.
    canonical = text.rlike(_USUAL)
    return F.when(canonical, text.try_cast("timestamp")).otherwise(_any_instant(text, zone))


def _any_instant(text: Column, zone: str) -> Column:
    """`instant` for every other ISO 8601 spelling."""
    from pyspark.sql import functions as F

    # Spark reads an offset only after seconds: HH:mm gets its :00.
    text = F.regexp_replace(text, f"^({_DATE}[T ]\\d{{2}}:\\d{{2}})(?=$|{_OFFSET})", "$1:00")
    wall_clock = text.try_cast("timestamp_ntz")
    # The wall clock read as UTC, then shifted by the zone's offset at that wall-clock time.
    as_utc = F.concat(wall_clock.cast("string"), F.lit("Z")).try_cast("timestamp")
    return (F.when(text.rlike(_WITH_OFFSET), text.try_cast("timestamp"))
            .when(text.rlike(ISO_8601), F.to_utc_timestamp(as_utc, zone)))

