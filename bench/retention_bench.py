"""Benchmark of retention: 5 years of hourly instances of a file feed (43,800 folders, one small file
each, plus decoys); evict the first 4 years.

1. The eviction phase (walk, plan, delete) through Hadoop's file system in a SparkSession, beside
   `find <folders> -delete` given exactly the folders the toolkit deleted, on an identical copy (a stray
   file in 2021/01/01 keeps that day, so 2021 goes as 11 months, 30 days and 24 hours, not one folder). Dirty
   pages are flushed (`sync`) before each: ext4 deletes several times slower while the copies are written back.
   This is the path of a table feed and of a cluster only Hadoop's client reaches (`hdfs://` without WebHDFS).
2. The whole `toolkit retain` call (its process start included: no JVM) beside that `find`, the two in turns for
   ROUNDS rounds, each on a copy of its own (the disk's pace drifts within a run); the best time of each.
3. The whole `spark-submit entrypoints/retention.py` on a copy of its own, which starts no SparkContext for a file feed:
   what it takes beyond the same call by `toolkit retain` (the same eviction work), beside spark-submit's launcher
   alone (`spark-submit` of an empty Python file); an empty `spark-submit` that starts a SparkSession, what every
   call paid before, is printed beside them.
Targets (issues 4 and 36): eviction within 2x of find; `toolkit retain` within 1.3x of find; the spark-submit run
beyond `toolkit retain`'s within the launcher alone + 2 s.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.figures import report  # noqa: E402
from bench.find_delete import find_delete_command  # noqa: E402
from toolkit.core.el.templates import PathTemplate  # noqa: E402
from toolkit.core.el.timezones import resolve_zone  # noqa: E402
from toolkit.core.entities.repo import ConfigRepo  # noqa: E402
from toolkit.extensions.retention_actions.delete_action import evict  # noqa: E402
from toolkit.planners.retention.file_plan import plan_location  # noqa: E402

START = datetime(2021, 1, 1, tzinfo=timezone.utc)
HOURS = 5 * 8760 + 24  # 2021 .. 2025 (2024 is a leap year)
NOMINAL = "2026-01-01T00:00Z"  # months(12) on backup: the cut-off is 2025-01-01T00:00Z
SPARK_HOME = Path(str(__import__("pyspark").__file__)).parent
ROUNDS = 2  # find and toolkit retain in turns, each on a copy of its own; the best of each


def build_tree(root: Path) -> None:
    base = root / "replica" / "clicks"
    for k in range(HOURS):
        folder = base / f"{START + timedelta(hours=k):%Y/%m/%d/%H}"
        folder.mkdir(parents=True)
        (folder / "part-00000").write_bytes(b"x" * 100)
    for decoy in ("2015-3-05", "someFolder", "bad-va-lue"):
        (base / decoy).mkdir()
    (base / "2021" / "01" / "01" / "stray.txt").write_text("a file at the wrong depth\n")


def make_repo(scratch: Path, root: Path) -> Path:
    repo = scratch / "conf"
    shutil.copytree(ROOT / "config_repo_template", repo)
    cluster = repo / "clusters" / "backup.yaml"
    cluster.write_text(cluster.read_text().replace("file:///tmp/feed-toolkit-demo/backup", f"file://{root}"))
    return repo


def eviction_phase(repo_dir: Path, root: Path) -> tuple[float, int, list[str]]:
    from pyspark.sql import SparkSession

    from toolkit.core.storage.hadoop import HadoopFileSystem
    from toolkit.core.storage.jvm_classes import jar_path

    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.jars", jar_path()).getOrCreate())
    fs = HadoopFileSystem(spark)
    repo = ConfigRepo.load(repo_dir)
    feed = repo.feed("clicks")
    template = PathTemplate(feed.locations_on("backup")["data"])
    cut_off = datetime(2025, 1, 1, tzinfo=timezone.utc)
    os.sync()  # the copies' dirty pages written first: ext4 deletes slowly while they are flushed
    began = time.perf_counter()
    plan = plan_location(fs, f"file://{root}", "data", template, resolve_zone(feed.timezone), cut_off)
    evict(fs, plan)
    elapsed = time.perf_counter() - began
    spark.stop()
    prefix = f"file://{root}/"
    return elapsed, len(plan.expired), [path[len(prefix):] for path in plan.deletions]


def _tree(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*")}


def timed(command: list[str]) -> float:
    began = time.perf_counter()
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable}
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {result.returncode}:\n{result.stdout[-3000:]}"
                         f"{result.stderr[-3000:]}")
    return time.perf_counter() - began


def main() -> int:
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        first = scratch / "toolkit-root"
        build_tree(first)
        copies = ["submit-root", *(f"{side}-root-{k}" for k in range(ROUNDS) for side in ("find", "retain"))]
        for copy in copies:
            shutil.copytree(first, scratch / copy)
        repo = make_repo(scratch, first)
        toolkit_seconds, evicted, deleted = eviction_phase(repo, first)
        submit_repo = make_repo(scratch / "submit", scratch / "submit-root")
        spark_submit = str(SPARK_HOME / "bin" / "spark-submit")
        empty = scratch / "empty.py"
        empty.write_text("from pyspark.sql import SparkSession\nSparkSession.builder.getOrCreate().stop()\n")
        empty_seconds = timed([spark_submit, "--master", "local[2]", str(empty)])
        launcher = scratch / "launcher.py"
        launcher.write_text("")
        launcher_seconds = timed([spark_submit, "--master", "local[2]", str(launcher)])
        entrypoint = str(ROOT / "entrypoints" / "retention.py")
        whole_seconds = timed([spark_submit, "--master", "local[2]", entrypoint, "--repo", str(submit_repo),
                               "--feed", "clicks", "--cluster", "backup", "--time", NOMINAL])
        # find and toolkit retain in turns, each round on copies of its own: the disk's pace drifts within a run.
        finds, retains, same, same_retained = [], [], True, True
        for k in range(ROUNDS):
            find_root, retain_root = scratch / f"find-root-{k}", scratch / f"retain-root-{k}"
            os.sync()
            finds.append(timed(find_delete_command([find_root / path for path in deleted], find_root)))
            same = same and _tree(first) == _tree(find_root)
            retain_repo = make_repo(scratch / f"retain-{k}", retain_root)
            os.sync()
            retains.append(timed([str(Path(sys.executable).parent / "toolkit"), "retain", "--repo",
                                  str(retain_repo), "--feed", "clicks", "--cluster", "backup", "--time", NOMINAL]))
            same_retained = same_retained and _tree(retain_root / "replica") == _tree(find_root / "replica")
        find_seconds, retain_seconds = min(finds), min(retains)
    print(f"retention_bench: {HOURS} hourly instances (5 years) + decoys; {evicted} evicted (4 years)")
    print(f"  eviction phase, toolkit (Hadoop FS): {toolkit_seconds:.2f} s")
    print(f"  find <the same {len(deleted)} folders> -delete: {find_seconds:.2f} s  (the best of {ROUNDS} rounds: "
          f"{', '.join(f'{seconds:.2f}' for seconds in finds)} s)")
    print(f"  ratio toolkit/find: {toolkit_seconds / find_seconds:.2f}x   (target <= 2x); same tree left: {same}")
    print(f"  toolkit retain, the whole call (no JVM): {retain_seconds:.2f} s  (the best of {ROUNDS} rounds: "
          f"{', '.join(f'{seconds:.2f}' for seconds in retains)} s);  ratio to find: "
          f"{retain_seconds / find_seconds:.2f}x   (target <= 1.3x); same tree left: {same_retained}")
    beyond = whole_seconds - retain_seconds
    print(f"  spark-submit retention.py (no SparkContext): {whole_seconds:.2f} s, {beyond:.2f} s beyond toolkit "
          f"retain's;  spark-submit's launcher alone: {launcher_seconds:.2f} s;  difference "
          f"{beyond - launcher_seconds:.2f} s   (target <= 2 s)")
    print(f"  (an empty spark-submit starting a SparkSession, what each call paid before: {empty_seconds:.2f} s)")
    ok = all([report("retention_bench", "eviction / find -delete", toolkit_seconds / find_seconds, 2),
              report("retention_bench", "toolkit retain / find -delete", retain_seconds / find_seconds, 1.3),
              report("retention_bench", "spark-submit beyond retain - launcher", beyond - launcher_seconds, 2,
                     unit="s"),
              same, same_retained])
    print("  result:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
