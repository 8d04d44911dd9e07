"""Benchmark of file-feed replication: one instance of the template's `clicks` feed pulled from `primary` to
`backup` (two local roots on the same disk) through Hadoop's file system and the JVM bulk copier, beside
`cp -r` of the same folder on the same disk, in the same run.

Data sets: (a) 2 GiB in 32 files, (b) 20,000 files of 8 KiB. For each: the copy phase and the whole run
(list, plan, copy, verify, publish, flag, record) against `cp -r`, best of 2 (both read the source from the
page cache: it was just written), then a rerun with nothing changed.
Targets (issue 5): (a) copy phase at least 0.8x cp's throughput; (b) copy phase within 3x cp's time; the rerun
with nothing changed under 10% of the first run's copy phase.
"""

from __future__ import annotations

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

from toolkit.entities.repo import ConfigRepo  # noqa: E402
from toolkit.replication.run import run_replication  # noqa: E402

INSTANCE = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)
DATA_SETS = {
    "a": ("2 GiB in 32 files", 32, 64 * 2**20),
    "b": ("20,000 files of 8 KiB", 20_000, 8 * 2**10),
}


def make_repo(scratch: Path) -> Path:
    repo = scratch / "conf"
    shutil.copytree(ROOT / "config_repo_template", repo)
    for name in ("primary", "backup"):
        cluster = repo / "clusters" / f"{name}.yaml"
        cluster.write_text(cluster.read_text().replace(f"file:///tmp/feed-toolkit-demo/{name}",
                                                        f"file://{scratch / name}"))
    return repo


def write_instance(folder: Path, count: int, size: int) -> None:
    folder.mkdir(parents=True)
    block = os.urandom(min(size, 2**20))
    for k in range(count):
        with open(folder / f"part-{k:05d}", "wb") as out:
            for _ in range(size // len(block)):
                out.write(block)
            out.write(block[: size % len(block)])
    (folder / "_SUCCESS").write_bytes(b"")


def cp_seconds(source: Path, copy: Path) -> float:
    began = time.perf_counter()
    subprocess.run(["cp", "-r", str(source), str(copy)], check=True)
    elapsed = time.perf_counter() - began
    shutil.rmtree(copy)
    return elapsed


def main() -> int:
    from pyspark.sql import SparkSession

    from toolkit.storage.hadoop import HadoopFileSystem

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.driver.host", "127.0.0.1").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    fs = HadoopFileSystem(spark)
    passed = True
    with tempfile.TemporaryDirectory(prefix="replication-bench-", dir="/tmp") as folder:
        scratch = Path(folder)
        repo = ConfigRepo.load(make_repo(scratch))
        target = scratch / "backup/replica/clicks/2026/11/21/10"
        warm = scratch / "warm"  # one small run first: the copier's class is compiled once per JVM
        write_instance(scratch / "primary/data/clicks/2026/11/21/09", 2, 1024)
        run_replication(repo, "clicks", "backup", datetime(2026, 11, 21, 9, tzinfo=timezone.utc), fs, now=INSTANCE)
        for key, (title, count, size) in DATA_SETS.items():
            source = scratch / "primary/data/clicks/2026/11/21/10"
            write_instance(source, count, size)
            total = count * size
            cp_best = min(cp_seconds(source, warm) for _ in range(2))
            copy_best, whole_best = float("inf"), float("inf")
            for _ in range(2):
                if target.exists():
                    shutil.rmtree(target)
                result = run_replication(repo, "clicks", "backup", INSTANCE, fs, now=INSTANCE)
                counters = result.counters()
                assert counters["files_copied"] == count and counters["bytes_copied"] == total, counters
                copy_best = min(copy_best, float(counters["copy_seconds"]))
                whole_best = min(whole_best, result.elapsed_seconds)
            rerun = run_replication(repo, "clicks", "backup", INSTANCE, fs, now=INSTANCE)
            assert rerun.counters()["files_copied"] == 0
            mib = total / 2**20
            print(f"replication_bench: ({key}) {title}, best of 2")
            print(f"  cp -r:                     {cp_best:6.2f} s  ({mib / cp_best:7.0f} MiB/s)")
            print(f"  replication, copy phase:   {copy_best:6.2f} s  ({mib / copy_best:7.0f} MiB/s)")
            print(f"  replication, whole run:    {whole_best:6.2f} s")
            print(f"  rerun, nothing changed:    {rerun.elapsed_seconds:6.2f} s")
            if key == "a":
                ratio = cp_best / copy_best
                ok = ratio >= 0.8
                print(f"  copy throughput vs cp: {ratio:.2f}x (target >= 0.8x); whole run vs cp: "
                      f"{cp_best / whole_best:.2f}x")
            else:
                ratio = copy_best / cp_best
                ok = ratio <= 3.0
                print(f"  copy time vs cp: {ratio:.2f}x (target <= 3x); whole run vs cp: {whole_best / cp_best:.2f}x")
            rerun_share = rerun.elapsed_seconds / copy_best
            rerun_ok = rerun_share < 0.10
            print(f"  rerun / first copy phase: {rerun_share:.1%} (target < 10%)")
            print(f"  result: {'PASS' if ok and rerun_ok else 'FAIL'}")
            passed = passed and ok and rerun_ok
            shutil.rmtree(source)
            shutil.rmtree(target)
    spark.stop()
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
