"""The nominal time of a call: the given `--time`, or now rounded down to the minute.

The clock is read here and only here (for a `--time` left out), so everything below gets its nominal time
passed in. Both the entrypoints and the `toolkit` command use it, so it lives below both.
"""

from __future__ import annotations

from datetime import datetime

from toolkit.core.el.timestamps import parse_timestamp
from toolkit.core.el.timezones import UTC


def nominal_time(text: str | None, option: str = "--time") -> datetime:
    """The given time, or now rounded down to the minute when none was given."""
    if text is None:
        return datetime.now(UTC).replace(second=0, microsecond=0)
    return parse_timestamp(text, option)
