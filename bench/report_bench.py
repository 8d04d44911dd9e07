"""Benchmark of the operator's view (issue 40) on the ledger-scale bench's roll-up layout (bench/ledger_scale_bench.py:
1,000 hourly processes with a year of instances, one roll-up file per process and month, 2,000 feeds): `toolkit
metrics` of the whole cluster over its default window (the last 7 days), beside `toolkit summary` of one process
over the same window, what an operator's question about one process costs. Targets: under 5 s, within 3x.

    python bench/report_bench.py                          # full size (~0.7 GB of roll-ups, made in ~7 minutes)
    python bench/report_bench.py --processes 50           # a quick check
    python bench/report_bench.py --keep /tmp/report-bench # build the ledger once, reuse it
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from ledger_scale_bench import HOURS, NOW, Setup, best_of, command, in_scratch, write_rollups  # noqa: E402

from bench.figures import report  # noqa: E402

WEEK = ("2025-12-25T00:00Z", "2025-12-31T23:00Z")  # the default window of `toolkit metrics` at NOW
TARGET_SECONDS, TARGET_RATIO = 5.0, 3.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the ledger here and keep it")
    args = parser.parse_args()
    return in_scratch(args.keep, "report-bench-", lambda scratch: run(scratch, args.processes, args.runs))


def run(scratch: Path, processes: int, runs: int) -> int:
    setup = Setup(scratch / "rollups", range(processes))
    began = time.perf_counter()
    reused = (setup.folder / "primary/working/ledger/processes").exists()
    if not reused:
        write_rollups(setup.ledger, range(processes), HOURS)
    print(f"report_bench: roll-up layout, {processes} processes x {HOURS} hourly instances "
          f"({processes * 12:,} roll-up files, {2 * processes} feeds), "
          + ("reused" if reused else f"written in {time.perf_counter() - began:.0f} s") + f"; now {NOW}; best of "
          f"{runs}, whole processes")
    repo = str(setup.repo)
    summary = best_of(runs, command(["summary", "--repo", repo, "--process", "p0000", "--cluster", "primary",
                                     "--from", WEEK[0], "--to", WEEK[1], "--now", NOW]))
    metrics = best_of(runs, command(["metrics", "--repo", repo, "--cluster", "primary", "--now", NOW]))
    ratio = metrics / summary
    print(f"  toolkit summary, one process, the last 7 days:     {summary:6.2f} s")
    print(f"  toolkit metrics, the cluster, the last 7 days:     {metrics:6.2f} s   ratio {ratio:.2f}x "
          f"(targets: under {TARGET_SECONDS:.0f} s, within {TARGET_RATIO:.0f}x)")
    ok = all([report("report_bench", "metrics", metrics, TARGET_SECONDS, unit="s"),
              report("report_bench", "metrics / summary", ratio, TARGET_RATIO)])
    print("  result:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
