"""Run the benchmarks (`make bench`, `make bench-quick`) and end with one table: each figure now, its committed
baseline (bench/baseline.json), its target and whether it passes; a figure more than 20% worse than its baseline is
flagged even while it meets its target.

A benchmark is only as good as the quiet of the machine: the table shows the load average when the run started and,
per benchmark, the CPU that other processes used while it ran (sampled from /proc every second, in cores). A
benchmark during which others used more than a quarter of a core is marked `loaded`: its figures are shown, not
trusted, and `--write-baseline` refuses such a run.

Exit status: 0 when every figure meets its target and every benchmark finished, 1 otherwise, 2 for bad use.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.figures import FIGURES_FILE, Figure, read_figures  # noqa: E402

BASELINE = HERE / "baseline.json"
BASELINE_VERSION = 1
LOADED_CORES = 0.25  # other processes' CPU, averaged over a benchmark, that makes its figures untrusted
QUIET_LOAD = 1.0  # the 1-minute load average under which a run may start as quiet
ALL = ("el_bench", "window_inverse_bench", "trigger_bench", "lint_bench", "retention_bench", "retention_cluster_bench",
       "ingest_bench", "replication_bench", "copy_bench", "hive_bench", "process_bench", "lineage_bench",
       "lineage_query_bench", "graph_bench", "quality_bench", "ledger_scale_bench", "webhdfs_bench", "jdbc_bench",
       "plan_bench", "report_bench", "wait_bench")
# The subset that runs in under 3 minutes, for a change to check itself before it stops.
QUICK = {"el_bench": (), "lint_bench": (), "trigger_bench": (), "process_bench": ("--quick",),
         "replication_bench": ("--quick",)}


@dataclass
class BenchRun:
    """One benchmark's process: its exit status, its figures and the CPU others used meanwhile."""

    name: str
    returncode: int
    seconds: float
    others_cores: float
    figures: list[Figure] = field(default_factory=list)

    @property
    def loaded(self) -> bool:
        return self.others_cores > LOADED_CORES


class OthersCpu:
    """CPU time used by processes outside this run's session while it lasts, sampled from /proc every second
    (kernel threads left out: they mostly serve the benchmark's own writes)."""

    def __init__(self) -> None:
        self._session = os.getsid(0)
        self._ticks = os.sysconf("SC_CLK_TCK")
        self._last: dict[int, int] = {}
        self._used = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample_every_second, daemon=True)

    def __enter__(self) -> OthersCpu:
        self._began = time.monotonic()
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()
        self.cores = self._used / self._ticks / max(time.monotonic() - self._began, 1e-9)

    def _sample_every_second(self) -> None:
        while not self._stop.wait(1.0):
            self._sample()

    def _sample(self) -> None:
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue  # gone meanwhile
            session, flags, cpu = int(fields[3]), int(fields[6]), int(fields[11]) + int(fields[12])
            if session == self._session or flags & 0x00200000:  # ours, or a kernel thread (PF_KTHREAD)
                continue
            pid = int(entry.name)
            self._used += max(0, cpu - self._last.get(pid, cpu))
            self._last[pid] = cpu


def run_bench(name: str, arguments: tuple[str, ...]) -> BenchRun:
    with tempfile.TemporaryDirectory(prefix="bench-figures-") as folder:
        kept = os.path.join(folder, "figures.jsonl")
        env = {**os.environ, FIGURES_FILE: kept}
        began = time.monotonic()
        with OthersCpu() as others:
            returncode = subprocess.run([sys.executable, str(HERE / f"{name}.py"), *arguments], env=env).returncode
        return BenchRun(name, returncode, time.monotonic() - began, others.cores, read_figures(kept))


def load_baseline(path: Path) -> dict[str, Figure]:
    """The committed figures by key ("retention_bench: eviction / find -delete"); {} when there is no baseline."""
    if not path.exists():
        return {}
    try:
        recorded = json.loads(path.read_text())
        if recorded.get("version") != BASELINE_VERSION:
            raise ValueError(f"version {recorded.get('version')!r}, expected {BASELINE_VERSION}")
        figures = [Figure(**fields) for fields in recorded["figures"]]
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise SystemExit(f"bench: the baseline {path} cannot be read ({err}); restore it from git or write it anew "
                         "with `python bench/run.py --write-baseline` on a quiet machine.") from None
    return {figure.key: figure for figure in figures}


def machine() -> str:
    return f"{os.cpu_count()} cores, {platform.machine()}"


def table(runs: list[BenchRun], baseline: dict[str, Figure]) -> tuple[list[str], bool]:
    """The table's lines and whether everything passed."""
    rows = [("benchmark", "figure", "now", "baseline", "target", "result", "note")]
    passed = True
    for run in runs:
        if not run.figures:
            rows.append((run.name, "-", "-", "-", "-", "FAIL", f"exited {run.returncode} without its figures"))
            passed = False
        for figure in run.figures:
            kept = baseline.get(figure.key)
            before = None if kept is None else kept.value
            notes = []
            if before is not None and figure.worse_than(before):
                notes.append("more than 20% worse than its baseline")
            if run.loaded:
                notes.append(f"loaded: others used {run.others_cores:.2f} cores")
            passed = passed and figure.passed
            rows.append((run.name, figure.name, figure.shown(), "-" if before is None else figure.shown(before),
                         figure.target_shown(), "PASS" if figure.passed else "FAIL", "; ".join(notes)))
        if run.figures and run.returncode != 0 and all(figure.passed for figure in run.figures):
            rows.append((run.name, "-", "-", "-", "-", "FAIL", f"exited {run.returncode} though its figures passed"))
            passed = False
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return lines, passed


def write_baseline(path: Path, runs: list[BenchRun], load_at_start: float) -> None:
    """This run's figures into the baseline, beside the figures of benchmarks it did not run."""
    measured = {figure.key: replace(figure, value=round(figure.value, 4)) for run in runs for figure in run.figures}
    kept = {**load_baseline(path), **measured}
    commit = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    path.write_text(json.dumps({
        "version": BASELINE_VERSION, "machine": machine(), "recorded": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "commit": commit or "unknown", "load_average_at_start": round(load_at_start, 2),
        "figures": [asdict(kept[key]) for key in sorted(kept)]}, indent=2) + "\n")
    print(f"bench: wrote {len(measured)} figures into {path}")


def readme_table(path: Path) -> str:
    """The README's benchmark table, from the committed baseline (tests/unit/test_bench_table.py checks that the
    README holds it)."""
    recorded = json.loads(path.read_text())
    lines = [f"| benchmark | figure | baseline ({recorded['machine']}, {recorded['recorded']}) | target | met |",
             "|---|---|---|---|---|"]
    lines += [f"| {figure.bench} | {figure.name} | {figure.shown()} | {figure.target_shown()} | "
              f"{'yes' if figure.passed else '**no**'} |" for figure in load_baseline(path).values()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="Only the benchmarks that run in under 3 minutes.")
    parser.add_argument("--only", nargs="+", metavar="NAME", choices=ALL, help="These benchmarks only.")
    parser.add_argument("--baseline", type=Path, default=BASELINE, help="The baseline (default bench/baseline.json).")
    parser.add_argument("--write-baseline", action="store_true",
                        help="Write this run's figures into the baseline; refused when the run was loaded.")
    parser.add_argument("--readme-table", action="store_true", help="Print the README's table of the baseline.")
    args = parser.parse_args(argv)
    if args.readme_table:
        print(readme_table(args.baseline))
        return 0
    baseline = load_baseline(args.baseline)
    chosen = {name: QUICK.get(name, ()) if args.quick else () for name in (args.only or
                                                                           (QUICK if args.quick else ALL))}
    # The toolkit timed as installed: with its bytecode written, not compiled at each call where
    # PYTHONDONTWRITEBYTECODE is set (the Makefile's install does the same; up-to-date modules are skipped).
    compileall.compile_dir(HERE.parent / "toolkit", quiet=1, workers=0)
    load_at_start = os.getloadavg()[0]
    print(f"bench: {len(chosen)} benchmark(s) on {machine()}; load average at the start: "
          f"{', '.join(f'{value:.2f}' for value in os.getloadavg())} (1, 5, 15 min)", flush=True)
    runs = [run_bench(name, arguments) for name, arguments in chosen.items()]
    lines, passed = table(runs, baseline)
    quiet = load_at_start < QUIET_LOAD and not any(run.loaded for run in runs)
    print()
    minutes = sum(run.seconds for run in runs) / 60
    print(f"bench: {'quiet' if quiet else 'LOADED'} run; load average at the start {load_at_start:.2f} (quiet "
          f"under {QUIET_LOAD:.0f}); took {minutes:.1f} min; baseline {args.baseline.name}")
    print("\n".join(lines))
    failed = sorted({run.name for run in runs if run.returncode != 0 or not all(f.passed for f in run.figures)})
    if failed:
        print(f"benchmarks that missed their targets: {' '.join(failed)}")
    if args.write_baseline:
        if not quiet:
            print("bench: not writing the baseline: the run was loaded (see the table); run it again on a quiet "
                  "machine.", file=sys.stderr)
            return 1
        write_baseline(args.baseline, runs, load_at_start)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
