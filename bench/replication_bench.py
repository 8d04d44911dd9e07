"""Benchmark of file-feed replication: one instance of the template's `clicks` feed pulled from `primary` to
`backup` (two local roots on the same disk) through Hadoop's file system and the JVM bulk copier, beside
`cp -r` of the same folder on the same disk, in the same run.

Data sets: (a) 2 GiB in 32 files, (b) 20,000 files of 8 KiB in 20 folders. For each: the copy phase and the
whole run (list, plan, copy, verify, publish, flag, record) against `cp -r`, the best of 2 rounds that
alternate (cp, replication, cp, replication) so background noise hits both alike; both read the source from
the page cache (it was just written) and dirty pages are flushed (`sync`) before each timed run. Every round
of (b) writes into a fresh folder and nothing is deleted until the data set is done: on ext4, creating files
right after deleting thousands is several times slower for a while, whichever side comes next; (a)'s copies
are deleted after each round, so that gigabytes of dirty pages do not pile up. Then a rerun of the
first instance, with nothing changed, the best of 5 after a `sync` (a rerun takes about a tenth of a second, and
the best of 2 ranged from 0.08 to 0.11 s between runs of this bench on the same code), beside its floor: two
`find`s at once reading the two trees' sizes and mtimes, which a rerun compares.
Targets (issue 5): (a) copy phase at least 0.8x cp's throughput; (b) copy phase within 3x cp's time; the rerun
with nothing changed under 10% of the first run's copy phase.

(c) The distributed copy (issue 20): on a standalone cluster started here (toolkit/devtools/standalone_spark.py, two
workers of one core), one instance (`--cluster-mib`, 2 GiB in 32 files by default) copied as a Spark job over the
executors (the feed's `replication.distributed-above-files: "0"`), by an application of one executor
(spark.cores.max=1) beside one of two, best of 2 each: the ratio, the throughput per executor, and what that
per-executor rate would make of 100 nodes beside DistCp's published 50-80 MB/s per map. On a 2-core machine the two
executors share the cores and the disk with the driver: the ratio shows the job spreads, not how a cluster scales.
Informational: it has no target. `--case cluster --cluster-mib 64` checks it quickly.
`--quick` (part of `make bench-quick`): (b) alone, one round, and its rerun.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.figures import report  # noqa: E402
from toolkit.actions.replication.runner import ReplicationRequest, run_replication  # noqa: E402
from toolkit.core.entities.repo import ConfigRepo  # noqa: E402
from toolkit.services.runtime.run_context import RunContext  # noqa: E402

INSTANCE = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)
DATA_SETS = {
    "a": ("2 GiB in 32 files", 1, 32, 64 * 2**20),
    "b": ("20,000 files of 8 KiB in 20 folders", 20, 1000, 8 * 2**10),
}
ROUNDS = 2
RERUNS = 5
WARM_UP_RUNS = 8  # the first copies 10,000 files, the others walk both trees and copy nothing


def make_repo(scratch: Path) -> Path:
    repo = scratch / "conf"
    shutil.copytree(ROOT / "config_repo_template", repo)
    for name in ("primary", "backup"):
        cluster = repo / "clusters" / f"{name}.yaml"
        cluster.write_text(cluster.read_text().replace(f"file:///tmp/feed-toolkit-demo/{name}",
                                                        f"file://{scratch / name}"))
    return repo


def write_instance(folder: Path, folders: int, count: int, size: int) -> None:
    """`folders` x `count` files of `size` bytes (in sub-folders when there are several) and the flag."""
    block = os.urandom(min(size, 2**20))
    for f in range(folders):
        place = folder / f"f{f:02d}" if folders > 1 else folder
        place.mkdir(parents=True)
        for k in range(count):
            with open(place / f"part-{k:05d}", "wb") as out:
                for _ in range(size // len(block)):
                    out.write(block)
                out.write(block[: size % len(block)])
    (folder / "_SUCCESS").write_bytes(b"")


def cp_seconds(source: Path, copy: Path) -> float:
    subprocess.run(["sync"], check=True)
    began = time.perf_counter()
    subprocess.run(["cp", "-r", str(source), str(copy)], check=True)
    return time.perf_counter() - began


def finds_seconds(source: Path, target: Path) -> float:
    """Two `find`s printing each file's size and mtime, one per tree, at once: what a rerun must read."""
    began = time.perf_counter()
    finds = [subprocess.Popen(["find", str(tree), "-printf", "%P %s %T@\\n"], stdout=subprocess.DEVNULL)
             for tree in (source, target)]
    for find in finds:
        find.wait()
    return time.perf_counter() - began


def cluster_case(megabytes: int) -> None:
    """(c): the same instance copied over one executor, then two, on a standalone cluster of two workers."""
    from pyspark.sql import SparkSession

    from toolkit.core.storage.hadoop import HadoopFileSystem
    from toolkit.core.storage.jvm_classes import jar_path
    from toolkit.devtools.standalone_spark import StandaloneCluster

    files = 32
    size = max(1, megabytes * 2**20 // files)
    with tempfile.TemporaryDirectory(prefix="replication-bench-cluster-", dir="/tmp") as folder:
        scratch = Path(folder)
        repo_path = make_repo(scratch)
        feed = repo_path / "feeds/clicks.yaml"
        feed.write_text(feed.read_text().replace("ACL:\n", 'properties:\n  replication.distributed-above-files: "0"\n'
                                                            "ACL:\n"))
        repo = ConfigRepo.load(repo_path)
        source = scratch / f"primary/data/clicks/{INSTANCE:%Y/%m/%d/%H}"
        target = scratch / f"backup/replica/clicks/{INSTANCE:%Y/%m/%d/%H}"
        write_instance(source, 1, files, size)
        total = files * size
        cluster = StandaloneCluster.start(scratch / "spark-cluster", workers=2)
        best: dict[int, tuple[float, int]] = {}
        try:
            for executors in (1, 2):
                spark = (SparkSession.builder.master(cluster.url).appName(f"replication-bench-{executors}")
                         .config("spark.cores.max", str(executors)).config("spark.executor.cores", "1")
                         .config("spark.executor.memory", "512m").config("spark.ui.enabled", "false")
                         .config("spark.ui.showConsoleProgress", "false")
                         .config("spark.jars", jar_path()).config("spark.driver.host", "127.0.0.1").getOrCreate())
                spark.sparkContext.setLogLevel("ERROR")
                status = spark.sparkContext._jsc.sc().getExecutorMemoryStatus()
                deadline = time.monotonic() + 120
                while status.size() - 1 < executors and time.monotonic() < deadline:  # the driver is listed too
                    time.sleep(0.2)
                    status = spark.sparkContext._jsc.sc().getExecutorMemoryStatus()
                fs = HadoopFileSystem(spark)
                seconds, tasks = float("inf"), 0
                for _ in range(ROUNDS + 1):  # the first round warms the executors' JVMs up and is not counted
                    shutil.rmtree(target, ignore_errors=True)
                    subprocess.run(["sync"], check=True)
                    counters = run_replication(repo, "clicks", "backup", ReplicationRequest(INSTANCE, INSTANCE),
                                               RunContext(fs)).counters()
                    assert counters["copier"] == "executors" and counters["bytes_copied"] == total, counters
                    assert counters["copy_executors"] == executors, counters
                    seconds = min(seconds, float(str(counters["copy_seconds"])))
                    tasks = int(str(counters["copy_tasks"]))
                best[executors] = (seconds, tasks)
                spark.stop()
        finally:
            cluster.stop()
    mb = total / 1e6
    one, two = best[1][0], best[2][0]
    per_executor = mb / two / 2
    print(f"replication_bench: (c) {total / 2**20:.0f} MiB in {files} files copied over the executors of a standalone "
          f"cluster, best of {ROUNDS}")
    print(f"  1 executor:   {one:6.2f} s  ({mb / one:7.0f} MB/s, {best[1][1]} tasks)")
    print(f"  2 executors:  {two:6.2f} s  ({mb / two:7.0f} MB/s, {best[2][1]} tasks)")
    print(f"  speed-up 1 -> 2 executors: {one / two:.2f}x (this machine has {os.cpu_count()} cores for the driver, "
          "both executors and the disk)")
    print(f"  per executor: {per_executor:.0f} MB/s; at that rate 100 nodes would copy {per_executor * 100 / 1000:.1f} "
          f"GB/s, where DistCp's published 50-80 MB/s per map makes 5.0-8.0 GB/s for 100 maps")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", choices=("local", "cluster", "all"), default="all",
                        help="(a) and (b) on local[2], (c) on a standalone cluster, or all (default).")
    parser.add_argument("--cluster-mib", type=int, default=2048, help="The size of (c)'s instance (default 2048).")
    parser.add_argument("--quick", action="store_true", help="(b) alone, one round, and its rerun.")
    args = parser.parse_args()
    if args.quick:
        return 0 if local_cases(("b",), rounds=1) else 1
    passed = local_cases() if args.case in ("local", "all") else True
    if args.case in ("cluster", "all"):
        cluster_case(args.cluster_mib)
    return 0 if passed else 1


def local_cases(keys: tuple[str, ...] = tuple(DATA_SETS), rounds: int = ROUNDS) -> bool:
    """The data sets `keys` of (a) and (b), best of `rounds`; True when they met their targets."""
    from pyspark.sql import SparkSession

    from toolkit.core.storage.hadoop import HadoopFileSystem
    from toolkit.core.storage.jvm_classes import jar_path

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").config("spark.jars", jar_path())
             .config("spark.driver.host", "127.0.0.1").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    fs = HadoopFileSystem(spark)
    passed = True
    with tempfile.TemporaryDirectory(prefix="replication-bench-", dir="/tmp") as made:
        scratch = Path(made)
        repo = ConfigRepo.load(make_repo(scratch))
        # A smaller instance replicated, then rerun, first, so that every measured path runs warm: the copier's
        # and the tree walker's Java classes are compiled once per JVM and then JIT-compiled like any other code.
        # The rerun's walk of two trees needs about 100,000 entries walked before the JIT's last tier compiles it
        # (measured: a rerun of (b) took 0.12-0.15 s after 3 warm-up runs of 2,000 files, 0.08 s after more).
        warm_up = datetime(2026, 11, 21, 9, tzinfo=timezone.utc)
        write_instance(scratch / f"primary/data/clicks/{warm_up:%Y/%m/%d/%H}", 10, 1000, 1024)
        for _ in range(WARM_UP_RUNS):
            run_replication(repo, "clicks", "backup", ReplicationRequest(warm_up, warm_up), RunContext(fs))
        for key in keys:
            title, folders, count, size = DATA_SETS[key]
            total = folders * count * size
            many_files = folders * count > 1000
            # Many small files: one source instance per round and nothing deleted until the end (see above).
            # A few large files: one instance, its copies deleted after each round (the disk stays cool).
            hours = [INSTANCE.replace(hour=10 + k) for k in range(rounds if many_files else 1)]
            for t in hours:
                write_instance(scratch / f"primary/data/clicks/{t:%Y/%m/%d/%H}", folders, count, size)
            cp_best = copy_best = whole_best = float("inf")
            for k in range(rounds):
                t = hours[k % len(hours)]
                source = scratch / f"primary/data/clicks/{t:%Y/%m/%d/%H}"
                target = scratch / f"backup/replica/clicks/{t:%Y/%m/%d/%H}"
                copy = scratch / f"cp-{key}-{k}"
                cp_best = min(cp_best, cp_seconds(source, copy))
                if not many_files:
                    shutil.rmtree(copy)
                    if target.exists():
                        shutil.rmtree(target)
                subprocess.run(["sync"], check=True)
                result = run_replication(repo, "clicks", "backup", ReplicationRequest(t, t), RunContext(fs))
                counters = result.counters()
                assert counters["files_copied"] == folders * count and counters["bytes_copied"] == total, counters
                copy_best = min(copy_best, float(str(counters["copy_seconds"])))
                whole_best = min(whole_best, result.elapsed_seconds)
            subprocess.run(["sync"], check=True)
            reruns = [run_replication(repo, "clicks", "backup", ReplicationRequest(hours[0], hours[0]),
                                      RunContext(fs)) for _ in range(RERUNS)]
            assert all(rerun.counters()["files_copied"] == 0 for rerun in reruns)
            rerun_best = min(rerun.elapsed_seconds for rerun in reruns)
            walks = min(finds_seconds(scratch / f"primary/data/clicks/{hours[0]:%Y/%m/%d/%H}",
                                      scratch / f"backup/replica/clicks/{hours[0]:%Y/%m/%d/%H}") for _ in range(2))
            mib = total / 2**20
            print(f"replication_bench: ({key}) {title}, best of {rounds}")
            print(f"  cp -r:                     {cp_best:6.2f} s  ({mib / cp_best:7.0f} MiB/s)")
            print(f"  replication, copy phase:   {copy_best:6.2f} s  ({mib / copy_best:7.0f} MiB/s)")
            print(f"  replication, whole run:    {whole_best:6.2f} s")
            print(f"  rerun, nothing changed:    {rerun_best:6.2f} s   (its floor, the two trees' sizes and mtimes "
                  f"read by two `find`s at once: {walks:.2f} s)")
            if key == "a":
                ratio = cp_best / copy_best
                ok = report("replication_bench", "(a) cp / copy phase", ratio, 0.8, better="higher")
                print(f"  copy throughput vs cp: {ratio:.2f}x (target >= 0.8x); whole run vs cp: "
                      f"{cp_best / whole_best:.2f}x")
            else:
                ratio = copy_best / cp_best
                ok = report("replication_bench", "(b) copy phase / cp", ratio, 3.0)
                print(f"  copy time vs cp: {ratio:.2f}x (target <= 3x); whole run vs cp: {whole_best / cp_best:.2f}x")
            rerun_share = rerun_best / copy_best
            rerun_ok = report("replication_bench", f"({key}) rerun / first copy phase", rerun_share, 0.10, unit="%")
            print(f"  rerun / first copy phase: {rerun_share:.1%} (target < 10%)")
            print(f"  result: {'PASS' if ok and rerun_ok else 'FAIL'}")
            passed = passed and ok and rerun_ok
            for t in hours:
                for folder in (scratch / f"primary/data/clicks/{t:%Y/%m/%d/%H}",
                               scratch / f"backup/replica/clicks/{t:%Y/%m/%d/%H}"):
                    shutil.rmtree(folder, ignore_errors=True)
            for copy in scratch.glob(f"cp-{key}-*"):
                shutil.rmtree(copy)
    spark.stop()
    return passed


if __name__ == "__main__":
    sys.exit(main())
