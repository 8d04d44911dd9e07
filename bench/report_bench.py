"""Benchmark of the operator's view (issue 40) on the ledger-scale bench's roll-up layout (bench/ledger_scale_bench.py:
1,000 hourly processes with a year of instances, one roll-up file per process and month, 2,000 feeds):
- `toolkit report` of 100 of the processes and their 200 feeds (a repo of those, on the same cluster) over the last
  30 days, beside `toolkit summary` of one process over those 30 days;
- `toolkit metrics` of the whole cluster over its default window (the last 7 days), beside `toolkit summary` of one
  process over the same window, what an operator's question about one process costs;
- `toolkit report` of a year of 67 of the processes and their 134 feeds (201 entities, 1,760,760 hourly cells).
Targets: each under 5 s, the first two within 3x of their summary. A command and its summary run in turns (best of
5 each): a machine whose speed drifts slows both alike, and a slow spell of a few seconds, which on this machine can
slow a run by half, misses some of the five runs of each.

    python bench/report_bench.py                          # full size (~0.7 GB of roll-ups, made in ~7 minutes)
    python bench/report_bench.py --processes 50           # a quick check
    python bench/report_bench.py --keep /tmp/report-bench # build the ledger once, reuse it
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench.figures import report  # noqa: E402
from bench.ledger_scale_bench import (  # noqa: E402
    HOURS,
    NOW,
    Setup,
    best_in_turns,
    best_of,
    command,
    in_scratch,
    make_repo,
    write_rollups,
)

WEEK = ("2025-12-25T00:00Z", "2025-12-31T23:00Z")  # the default window of `toolkit metrics` at NOW
MONTH = ("2025-12-02T00:00Z", "2025-12-31T23:00Z")  # the last 30 days
YEAR = ("2025-01-01T00:00Z", "2025-12-31T23:00Z")
REPORTED = 100  # processes on the page, with their input and output feeds
YEAR_REPORTED = 67  # processes on the year's page: with their feeds, the 200 entities of issue 40
TARGET_SECONDS, TARGET_RATIO = 5.0, 3.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the ledger here and keep it")
    args = parser.parse_args()
    return in_scratch(args.keep, "report-bench-", lambda scratch: run(scratch, args.processes, args.runs))


def run(scratch: Path, processes: int, runs: int) -> int:
    setup = Setup(scratch / "rollups", range(processes))
    began = time.perf_counter()
    reused = (setup.folder / "primary/working/ledger/processes").exists()
    if not reused:
        write_rollups(setup.ledger, range(processes), HOURS)
        os.sync()  # the kernel's write-back of the new ledger's 0.7 GB would otherwise run under the first timings
    print(f"report_bench: roll-up layout, {processes} processes x {HOURS} hourly instances "
          f"({processes * 12:,} roll-up files, {2 * processes} feeds), "
          + ("reused" if reused else f"written in {time.perf_counter() - began:.0f} s") + f"; now {NOW}; best of "
          f"{runs}, whole processes")
    repo = str(setup.repo)
    page_repo = str(make_repo(scratch / "page-conf", range(REPORTED), setup.folder / "primary"))
    year_repo = str(make_repo(scratch / "year-conf", range(YEAR_REPORTED), setup.folder / "primary"))

    def summary(window: tuple[str, str]) -> Callable[[], object]:
        return command(["summary", "--repo", repo, "--process", "p0000", "--cluster", "primary", "--from", window[0],
                        "--to", window[1], "--now", NOW])

    month, page = best_in_turns(runs, summary(MONTH), command([
        "report", "--repo", page_repo, "--cluster", "primary", "--from", MONTH[0], "--to", MONTH[1], "--now", NOW,
        "--out", str(scratch / "status.html")]))
    week, metrics = best_in_turns(runs, summary(WEEK), command(["metrics", "--repo", repo, "--cluster", "primary",
                                                                "--now", NOW]))
    year = best_of(runs, command(["report", "--repo", year_repo, "--cluster", "primary", "--from", YEAR[0],
                                  "--to", YEAR[1], "--now", NOW, "--out", str(scratch / "year.html")]))
    print(f"  toolkit summary, one process, the last 30 days:    {month:6.2f} s")
    print(f"  toolkit report, {REPORTED} processes and their {2 * REPORTED} feeds, the last 30 days: {page:6.2f} s   "
          f"ratio {page / month:.2f}x")
    print(f"  toolkit summary, one process, the last 7 days:     {week:6.2f} s")
    print(f"  toolkit metrics, the cluster, the last 7 days:     {metrics:6.2f} s   ratio {metrics / week:.2f}x")
    print(f"  toolkit report, {YEAR_REPORTED} processes and their {2 * YEAR_REPORTED} feeds, a year: {year:6.2f} s")
    print(f"  (targets: each under {TARGET_SECONDS:.0f} s, the first two within {TARGET_RATIO:.0f}x of their summary; "
          f"the pages are {(scratch / 'status.html').stat().st_size / 1e6:.1f} MB and "
          f"{(scratch / 'year.html').stat().st_size / 1e6:.1f} MB)")
    ok = all([report("report_bench", "report", page, TARGET_SECONDS, unit="s"),
              report("report_bench", "report / summary", page / month, TARGET_RATIO),
              report("report_bench", "metrics", metrics, TARGET_SECONDS, unit="s"),
              report("report_bench", "metrics / summary", metrics / week, TARGET_RATIO),
              report("report_bench", "report of a year", year, TARGET_SECONDS, unit="s")])
    print("  result:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
