"""Benchmark of retention for a whole cluster in one call (`toolkit retain --cluster C --all`, issue 36): FEEDS hourly
file feeds on one `file://` cluster, each holding a year of instances and kept `days(364)`, all due: the steady state
of a daily retention, which evicts each feed's oldest day (24 hourly folders of one 100-byte file each).

The tree: January holds every hour; February to December, wholly after the cut-off, hold one instance a month (the
plan prunes them unread and find is never given them, so their size changes neither side; building 4.4 million
folders would take longer than everything measured). One tree, built once:
1. `find <the folders the toolkit deletes> -delete`, given exactly the folders retention removes (as listed by the
   toolkit's own plan, not timed); then the deleted folders are built again.
2. One `toolkit retain --cluster lake --all` (the whole process, its start included) on the same tree, which must
   then be the tree find left.
3. Single calls, one feed each, as a per-feed schedule makes them, on feeds whose oldest day is built again: five
   `spark-submit entrypoints/retention.py --feed F` (a file feed: spark-submit's launcher JVM, no SparkContext) and
   five `toolkit retain --feed F`; their mean times FEEDS, an extrapolation from five calls, printed as such.
Dirty pages are flushed (`sync`) before each timed side. Targets: the cluster call within 1.5x of find, and at least
50x faster than FEEDS single spark-submits (extrapolated).

Run: .venv/bin/python bench/retention_cluster_bench.py [--feeds N] [--limit 'days(364)']
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.figures import report  # noqa: E402
from bench.find_delete import find_delete_command  # noqa: E402
from toolkit.devtools.feeds_repo import CLUSTER, write_feeds_repo, write_hours  # noqa: E402

FIRST = datetime(2025, 1, 1, tzinfo=timezone.utc)
JANUARY = 31 * 24
NOMINAL = "2026-01-01T00:00Z"  # daily cadence from 2025-01-01: due at this instant
SINGLES = 5
SPARK_SUBMIT = Path(str(__import__("pyspark").__file__)).parent / "bin" / "spark-submit"
TOOLKIT = Path(sys.executable).parent / "toolkit"


def build(scratch: Path, feeds: int, limit: str) -> tuple[Path, Path, list[str]]:
    """A repo of `feeds` feeds and its cluster root (January by the hour, a folder a month after); (repo, root,
    feed names)."""
    root = scratch / "root"
    root.mkdir()
    names = write_feeds_repo(scratch / "conf", root, feeds, limit=limit)
    for feed in names:
        write_hours(root, feed, FIRST, JANUARY)
        for month in range(2, 13):
            write_hours(root, feed, FIRST.replace(month=month), 1)
    return scratch / "conf", root, names


def rebuild(root: Path, folders: list[str]) -> None:
    """The deleted folders built again, as `build` made them (whole days or hours of January)."""
    for folder in folders:
        parts = Path(folder).relative_to(root).parts  # data, feed, YYYY, MM, DD[, HH]
        day = datetime(int(parts[2]), int(parts[3]), int(parts[4]), tzinfo=timezone.utc)
        if len(parts) == 5:
            write_hours(root, parts[1], day, 24)
        else:
            write_hours(root, parts[1], day.replace(hour=int(parts[5])), 1)


def planned_deletions(repo: Path, root: Path, names: list[str]) -> list[str]:
    """The folders retention removes, from the toolkit's own plan of each feed (not timed)."""
    from toolkit.core.el.templates import PathTemplate
    from toolkit.core.el.timestamps import parse_timestamp
    from toolkit.core.el.timezones import resolve_zone
    from toolkit.core.entities.repo import ConfigRepo
    from toolkit.core.storage.local import LocalFileSystem
    from toolkit.planners.retention.cutoff import cutoff
    from toolkit.planners.retention.file_plan import plan_location

    config, fs, folders = ConfigRepo.load(repo), LocalFileSystem(), []
    for name in names:
        feed = config.feed(name)
        on = feed.cluster(CLUSTER)
        assert on is not None and on.retention is not None
        cut = cutoff(parse_timestamp(NOMINAL), on.retention.limit, resolve_zone(feed.timezone))
        plan = plan_location(fs, f"file://{root}", "data", PathTemplate(feed.locations_on(CLUSTER)["data"]),
                             resolve_zone(feed.timezone), cut)
        folders += [path.removeprefix("file://") for path in plan.deletions]
    return folders


def timed(command: list[str], ok: tuple[int, ...] = (0,)) -> float:
    os.sync()
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable}
    began = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - began
    if result.returncode not in ok:
        raise SystemExit(f"{' '.join(command[:4])} ... exited {result.returncode}:\n{result.stdout[-3000:]}"
                         f"{result.stderr[-3000:]}")
    return seconds


def data_tree(root: Path) -> set[str]:
    return {os.path.relpath(os.path.join(folder, name), root)
            for folder, folders, files in os.walk(root / "data") for name in folders + files}


def single_calls(repo: Path, root: Path, names: list[str], folders: list[str]) -> tuple[float, float]:
    """Mean seconds of one `spark-submit retention.py --feed` and of one `toolkit retain --feed`, over SINGLES feeds
    each, their evicted folders built again first."""
    chosen = names[:2 * SINGLES]
    rebuild(root, [folder for folder in folders if Path(folder).relative_to(root).parts[1] in chosen])
    submits = [timed([str(SPARK_SUBMIT), "--master", "local[1]", "--conf", "spark.ui.enabled=false",
                      str(ROOT / "entrypoints" / "retention.py"), "--repo", str(repo), "--feed", name,
                      "--cluster", CLUSTER, "--time", NOMINAL]) for name in chosen[:SINGLES]]
    retains = [timed([str(TOOLKIT), "retain", "--repo", str(repo), "--feed", name, "--cluster", CLUSTER,
                      "--time", NOMINAL]) for name in chosen[SINGLES:]]
    return sum(submits) / SINGLES, sum(retains) / SINGLES


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--feeds", type=int, default=500)
    parser.add_argument("--limit", default="days(364)", help="the feeds' retention limit (default days(364))")
    args = parser.parse_args()
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="retention_cluster_bench-", dir="/tmp") as scratch_name:
        scratch = Path(scratch_name)
        repo, root, names = build(scratch, args.feeds, args.limit)
        built = time.perf_counter() - began
        folders = planned_deletions(repo, root, names)
        find_seconds = timed(find_delete_command(folders, scratch))
        left_by_find = data_tree(root)
        rebuild(root, folders)
        all_seconds = timed([str(TOOLKIT), "retain", "--repo", str(repo), "--cluster", CLUSTER, "--all", "--time",
                             NOMINAL])
        same = data_tree(root) == left_by_find
        submit_mean, retain_mean = single_calls(repo, root, names, folders)
    submits, retains = submit_mean * args.feeds, retain_mean * args.feeds
    print(f"retention_cluster_bench: {args.feeds} hourly file feeds on one file:// cluster, a year each (January by "
          f"the hour, a folder a month after), limit {args.limit}, all due; the tree built in {built:.0f} s, "
          f"{time.perf_counter() - began:.0f} s in all")
    print(f"  find <the same {len(folders):,} folders> -delete:            {find_seconds:8.2f} s")
    print(f"  toolkit retain --cluster {CLUSTER} --all, whole call:    {all_seconds:8.2f} s   ratio to find "
          f"{all_seconds / find_seconds:.2f}x (target <= 1.5x); same tree left: {same}")
    print(f"  {args.feeds} single spark-submit retention.py --feed:  {submits:8.2f} s   (extrapolated from "
          f"{SINGLES} calls, mean {submit_mean:.2f} s); the cluster call is {submits / all_seconds:.0f}x faster "
          "(target >= 50x)")
    print(f"  {args.feeds} single toolkit retain --feed:             {retains:8.2f} s   (extrapolated from "
          f"{SINGLES} calls, mean {retain_mean:.2f} s); the cluster call is {retains / all_seconds:.1f}x faster")
    ok = all([report("retention_cluster_bench", "cluster call / find -delete", all_seconds / find_seconds, 1.5),
              report("retention_cluster_bench", "single spark-submits / cluster call", submits / all_seconds, 50,
                     better="higher"),
              same])
    print("  result:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
