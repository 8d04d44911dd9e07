"""Reading a generated crontab in the schedule tests."""

from __future__ import annotations


def blocks(text: str) -> dict[str, list[str]]:
    """The cron lines (comments left out) under each CRON_TZ."""
    found: dict[str, list[str]] = {}
    zone = None
    for line in text.splitlines():
        if line.startswith("CRON_TZ="):
            zone = line.removeprefix("CRON_TZ=")
            found[zone] = []
        elif zone is not None and line and not line.startswith("#"):
            found[zone].append(line)
    return found
