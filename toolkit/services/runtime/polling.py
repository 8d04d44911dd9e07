"""How often a run that waits for data looks again (a process instance for its inputs, an export for its instance):
soon at first, then less often."""

from __future__ import annotations

from collections.abc import Iterator

# A waiting run looks again after 10 s, then doubling up to 5 minutes.
FIRST_POLL_SECONDS, LONGEST_POLL_SECONDS = 10.0, 300.0


def poll_intervals(first: float = FIRST_POLL_SECONDS, longest: float = LONGEST_POLL_SECONDS) -> Iterator[float]:
    """10 s, 20 s, 40 s ... up to 5 minutes."""
    interval = first
    while True:
        yield interval
        interval = min(interval * 2, longest)
