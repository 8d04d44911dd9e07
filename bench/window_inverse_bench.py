"""Benchmark of the window inverse: which process instances a year of hourly events, or one sweep's 100, may complete.

A copy of the template repo gets two processes on its hourly feed `clicks`, in Europe/Berlin (so both clock
changes are in the year), valid for ten years (2026 to 2036): an hourly one reading `now(-2,0)`..`now(0,0)` and
a daily one reading `yesterday(0,0)`..`yesterday(23,0)`. The events are every hourly instance of `clicks` in 2030.
- inverse: `candidate_instances` (per event, a galloping search on the process grid's index);
- brute force: every process instance of the validity resolved forward (`resolve_window`) into a map from feed
  instance to readers, then looked up; without an inverse, nothing says which instances an event (a late one, a
  backfill) can touch. Its cost grows with the validity; the inverse's does not;
- for reference, the same forward scan told where to look (the events' span and a day around it, a margin that
  holds only because the bench knows these windows): the floor for a forward scan.
All three must give the same instances.
Targets: a year of events inverted in under 2 s; one sweep's 100 events at least 20x faster than the brute force.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from functools import partial
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.figures import report  # noqa: E402
from toolkit.core.el.resolution import resolve_window  # noqa: E402
from toolkit.core.entities.model import Process  # noqa: E402
from toolkit.core.entities.repo import ConfigRepo  # noqa: E402
from toolkit.core.instances.grids import feed_grid, process_grid  # noqa: E402
from toolkit.core.instances.window_inverse import candidate_instances  # noqa: E402

TEMPLATE = Path(__file__).resolve().parents[1] / "config_repo_template"
UTC = timezone.utc
YEAR_START, YEAR_END = datetime(2030, 1, 1, tzinfo=UTC), datetime(2031, 1, 1, tzinfo=UTC)
PROCESSES = {
    "hourly-trailing": ("hours(1)", "now(-2,0)", "now(0,0)"),
    "daily-yesterday": ("days(1)", "yesterday(0,0)", "yesterday(23,0)"),
}
Result = TypeVar("Result")


def write_repo(root: Path) -> ConfigRepo:
    shutil.copytree(TEMPLATE, root)
    for name, (frequency, start, end) in PROCESSES.items():
        (root / "processes" / f"{name}.yaml").write_text(textwrap.dedent(f"""\
            kind: process
            name: {name}
            timezone: Europe/Berlin
            clusters:
              - name: primary
                validity: {{start: "2026-01-01T00:00Z", end: "2036-01-01T00:00Z"}}
            frequency: {frequency}
            inputs:
              - {{name: clicks, feed: clicks, start: "{start}", end: "{end}"}}
            outputs:
              - {{name: out, feed: clicks-hourly-summary, instance: "now(0,0)"}}
            workflow: {{engine: spark-sql, path: workflows/report.sql}}
            """))
    return ConfigRepo.load(root)


def forward_map(repo: ConfigRepo, process: Process, first: datetime, last: datetime) -> dict[datetime, set[datetime]]:
    """Every process instance from first to last, its window resolved forward: feed instance -> its readers."""
    grid, item = process_grid(process, "primary"), process.inputs[0]
    on_feed = feed_grid(repo.feed(item.feed), "primary")
    readers: dict[datetime, set[datetime]] = {}
    for nominal in grid.between(first, last):
        assert item.start is not None and item.end is not None  # the bench's processes read windows
        for t in resolve_window(item.start, item.end, nominal, on_feed):
            readers.setdefault(t, set()).add(nominal)
    return readers


def looked_up(readers: dict[datetime, set[datetime]], events: list[tuple[str, datetime]]) -> tuple[datetime, ...]:
    return tuple(sorted({nominal for _, t in events for nominal in readers.get(t, ())}))


def looked_up_near(repo: ConfigRepo, process: Process, events: list[tuple[str, datetime]]) -> tuple[datetime, ...]:
    """The forward scan told where to look: the events' span and a day around it."""
    readers = forward_map(repo, process, events[0][1] - timedelta(days=1), events[-1][1] + timedelta(days=2))
    return looked_up(readers, events)


def timed(action: Callable[[], Result], repeats: int = 3) -> tuple[float, Result]:
    """The fastest of a few runs (the least disturbed by the rest of the machine), and the result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        began = time.perf_counter()
        result = action()
        best = min(best, time.perf_counter() - began)
    assert result is not None
    return best, result


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        repo = write_repo(Path(folder) / "conf")
    clicks = feed_grid(repo.feed("clicks"), "primary")
    year = [("clicks", t) for t in clicks.between(YEAR_START, YEAR_END - timedelta(hours=1))]
    sweep = year[4000:4100]
    ok = True
    print(f"window_inverse_bench: {len(year)} hourly events of clicks (2030) and a sweep's 100 of them; "
          "processes in Europe/Berlin valid 2026-2036 (best of 3, the brute force once)")
    for name, (_, start, end) in PROCESSES.items():
        process = repo.process(name)
        validity = process.clusters[0].validity
        brute, readers = timed(partial(forward_map, repo, process, validity.start, validity.end), repeats=1)
        rows = []
        for label, events in (("a year of events", year), ("a sweep's 100", sweep)):
            inverse, found = timed(partial(candidate_instances, repo, process, "primary", events))
            told, near = timed(partial(looked_up_near, repo, process, events))
            same = found == looked_up(readers, events) == near
            ok = ok and same
            rows.append((label, inverse, told, len(found), same))
        print(f"  {name} ({start}..{end}): brute force (the validity scanned) {brute:.3f} s")
        for label, inverse, told, count, same in rows:
            print(f"    {label:16} {count:5} instances: inverse {inverse * 1000:8.2f} ms, brute force/inverse "
                  f"{brute / inverse:7.1f}x; scan told where to look {told * 1000:8.2f} ms "
                  f"(scan/inverse {told / inverse:.2f}x); same instances: {same}")
        year_ok = report("window_inverse_bench", f"{name}: a year inverted", rows[0][1], 2, unit="s")
        sweep_ok = report("window_inverse_bench", f"{name}: brute force / a sweep inverted", brute / rows[1][1], 20,
                          better="higher")
        ok = ok and year_ok and sweep_ok
    print("  targets: a year of events inverted < 2 s; a sweep's 100 events >= 20x faster than the brute force")
    print("  result:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
