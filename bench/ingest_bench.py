"""Benchmark of streaming ingest (issue 16), each case beside a bare Spark job of the same data in the same run
(the bare jobs have no commit protocol, no flags, no dead letters, no ledger, no landing files moved out):

1. 2 million delimited records (about 200 MB) in 200 landing files, ingested with `--once` into an hourly file
   feed (48 hours), beside a bare Structured Streaming availableNow job in the same Spark session that reads the
   same files and writes the same hours with `partitionBy`. Target: within 1.2x of the bare job. Two rounds,
   each in a new folder; the best time of each job counts (a job's first run at this size is slower by a third).
2. The commit latency: with the stream running (`--for`), a file of 10,000 records dropped into the landing
   folder, and the time until its rows are readable in their instance. Target: under 5 s.
3. 10,000 small landing files (about 1 KB, 10 records each), ingested with the default settings (so in batches of
   ingest.max-files-per-batch, 1,000 files) beside a bare Structured Streaming availableNow job of the same files;
   records per second of both. Target: within 1.5x of the bare job (records/s of the bare over the toolkit's).
4. One 2 GB landing file (20 million lines of about 100 bytes) beside a bare `spark.read.text` + `partitionBy` of
   the same file, each with the driver at 1 GiB of heap (`spark-submit --driver-memory 1g`, local[2]): the file is
   read in splits, never whole. Target: within 1.5x of the bare job, and no failure for lack of memory; the JVM's
   peak RSS (VmHWM of /proc/<pid>/status, read in the child before its session stops) and -Xmx are printed.
   Two children, the bare job's first, then the toolkit's: each starts from a cold JVM (neither gains from the
   other's JIT-compiled code or cached classes) and each gets a peak RSS of its own. Both read the file from the
   page cache (the parent has just written it).

Cases 1, 2 and 3 run in this process's Spark session (local[2], the default 1 GiB driver), the bare job first,
after both jobs ran once on 4 small files (untimed: the session's first jobs load classes and warm the JIT up);
case 4 in two `spark-submit` children of the venv's Spark (this script again, with the sub-command `child`), after
this session stopped. The toolkit's result is checked in each case: records counted equal to lines written, none
rejected. Exit 1 when a target is missed. `--quick` (or INGEST_BENCH_QUICK=1) scales the cases down for a quick
check (40,000 records in case 1, 1,000 files in case 3, 200 MB in case 4). No figure is published for HCatalog
streaming, the Flume Hive sink or NiFi's Hive streaming processors; these are printed with the hardware and the
load average of the machine (2 cores in CI, where other work may run at once).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.figures import report  # noqa: E402
from toolkit.core.entities.repo import ConfigRepo  # noqa: E402
from toolkit.services.runtime.run_context import RunContext  # noqa: E402

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from toolkit.actions.ingest.runner import IngestResult
    from toolkit.core.storage.filesystem import FileSystem

HOURS = 48
SECONDS = HOURS * 3600
START = datetime(2026, 1, 1, tzinfo=timezone.utc)
PAGES = ["/home", "/cart", "/pay", "/search?q=shoes", "/product/1234567", "/help"]
POOL = 100_003  # distinct record tails (all but the time), a prime: records repeat after that many
CHUNK = 1_000_000  # lines per write of the 2 GB file (about 100 MB)
HEAP = "1g"  # the driver (and so executor) heap of case 4
RESULT = "ingest_bench child result: "  # the line of a child's stdout that carries its figures (JSON)
TMP = "/tmp"
ROUNDS = 2  # of case 1: the best time of each job counts


@dataclass(frozen=True)
class Sizes:
    files: int  # case 1: landing files, and records in each
    records_per_file: int
    big_lines: int  # case 4: lines of the one big file
    small_files: int  # case 3: landing files, and records in each
    small_records: int


FULL = Sizes(files=200, records_per_file=10_000, big_lines=20_000_000, small_files=10_000, small_records=10)
QUICK = Sizes(files=200, records_per_file=200, big_lines=2_000_000, small_files=1_000, small_records=10)


# --- the data ---------------------------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _stamps() -> tuple[str, ...]:
    """The event time field (and its comma) of each second of the 48 hours."""
    return tuple(f"{START + timedelta(seconds=s):%Y-%m-%dT%H:%M:%S}Z," for s in range(SECONDS))


@lru_cache(maxsize=1)
def _tails() -> tuple[str, ...]:
    """What follows the time in a record: user, session, page (padded so that a line is 99 bytes on average), ms."""
    return tuple(f"user-{k % 50_000:05d},s{k % 7919:04d}-{k % 104_729:06d},{PAGES[k % len(PAGES)]}/{'x' * (k % 81)},"
                 f"{k % 3000}\n" for k in range(POOL))


def records_text(first: int, count: int, total: int) -> str:
    """Records `first` to `first + count` of `total`, spread evenly over the 48 hours in order (ASCII)."""
    stamps, tails = _stamps(), _tails()
    return "".join([stamps[k * SECONDS // total] + tails[k % POOL] for k in range(first, first + count)])


def write_file(folder: Path, name: str, text: str) -> int:
    """Written hidden, then renamed in (as a producer does); its bytes."""
    hidden = folder / f".{name}"
    hidden.write_text(text, encoding="ascii")
    hidden.rename(folder / name)
    return len(text)


def write_files(folder: Path, files: int, records_per_file: int) -> int:
    """`files` landing files of `records_per_file` records each, one after another in time; their bytes."""
    total = files * records_per_file
    return sum(write_file(folder, f"clicks-{n:05d}.csv", records_text(n * records_per_file, records_per_file, total))
               for n in range(files))


def write_big(path: Path, lines: int) -> int:
    """One file of `lines` records, written in chunks of CHUNK lines; its bytes."""
    size = 0
    with path.open("wb") as out:
        for first in range(0, lines, CHUNK):
            data = records_text(first, min(CHUNK, lines - first), lines).encode("ascii")
            out.write(data)
            size += len(data)
    return size


def make_repo(scratch: Path, root: Path) -> ConfigRepo:
    repo = scratch / "conf"
    (repo / "clusters").mkdir(parents=True)
    (repo / "feeds").mkdir()
    (repo / "clusters" / "primary.yaml").write_text(textwrap.dedent(f"""\
        kind: cluster
        name: primary
        interfaces:
          write: {{endpoint: "file://{root}", version: "3.4"}}
        locations: {{working: /working}}
        """))
    (repo / "feeds" / "clicks.yaml").write_text(textwrap.dedent("""\
        kind: feed
        name: clicks
        frequency: hours(1)
        availabilityFlag: _SUCCESS
        clusters:
          - name: primary
            validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
        locations:
          data: /data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}
        columns:
          - {name: ts, type: string}
          - {name: user, type: string}
          - {name: session, type: string}
          - {name: page, type: string}
          - {name: ms, type: int}
        ingest:
          landing: /landing/clicks
          dead-letters: /rejected/clicks
          format: delimited
          fields: [ts, user, session, page, ms]
          time: ts
        """))
    return ConfigRepo.load(repo)


@dataclass(frozen=True)
class Place:
    """A case's folders: the cluster's root (landing folder, data, ledger) and the repo, in a scratch folder."""

    scratch: Path

    @property
    def root(self) -> Path:
        return self.scratch / "root"

    @property
    def landing(self) -> Path:
        return self.root / "landing" / "clicks"

    @classmethod
    def made(cls, scratch: Path) -> Place:
        place = cls(scratch)
        place.landing.mkdir(parents=True)
        make_repo(scratch, place.root)
        return place

    def repo(self) -> ConfigRepo:
        return ConfigRepo.load(self.scratch / "conf")


# --- the jobs -----------------------------------------------------------------------------------------------------

def _hourly(frame: DataFrame) -> DataFrame:
    """Lines (`value`) as the feed's columns and the hour's partition columns."""
    from pyspark.sql import functions as F

    parts = F.split("value", ",")
    return (frame.select(parts[0].alias("ts"), parts[1].alias("user"), parts[2].alias("session"),
                         parts[3].alias("page"), parts[4].cast("int").alias("ms"))
            .withColumn("t", F.to_timestamp("ts"))
            .withColumn("year", F.date_format("t", "yyyy")).withColumn("month", F.date_format("t", "MM"))
            .withColumn("day", F.date_format("t", "dd")).withColumn("hour", F.date_format("t", "HH")).drop("t"))


def bare_stream(spark: SparkSession, landing: str, out: str, checkpoint: str) -> float:
    """Seconds of a bare Structured Streaming availableNow job: the landing folder into hours by `partitionBy`."""
    began = time.perf_counter()
    query = (_hourly(spark.readStream.format("text").load(landing)).writeStream.format("parquet")
             .partitionBy("year", "month", "day", "hour").option("checkpointLocation", checkpoint)
             .option("path", out).trigger(availableNow=True).start())
    query.awaitTermination()
    return time.perf_counter() - began


def bare_batch(spark: SparkSession, file: str, out: str) -> float:
    """Seconds of a bare `spark.read.text` of one file into hours by `partitionBy`."""
    began = time.perf_counter()
    _hourly(spark.read.text(file)).write.partitionBy("year", "month", "day", "hour").parquet(out)
    return time.perf_counter() - began


def toolkit_ingest(spark: SparkSession, place: Place, run_id: str) -> tuple[float, IngestResult]:
    """Seconds of the toolkit's ingest `--once` of the landing folder, and its result."""
    from toolkit.actions.ingest.runner import run_ingest
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, fs = place.repo(), HadoopFileSystem(spark)
    began = time.perf_counter()
    result = run_ingest(spark, repo, "clicks", "primary", RunContext(fs, run_id=run_id))
    return time.perf_counter() - began, result


def check(result: IngestResult, records: int) -> None:
    """The toolkit's result is right: every record written counted, none rejected."""
    assert result.records == records and result.rejected == 0, (records, result.counters())


def latency(spark: SparkSession, place: Place, fs: FileSystem) -> float:
    """Seconds from a 10,000-record file renamed into the landing folder to its rows readable in their hour."""
    from toolkit.actions.ingest.runner import run_ingest

    repo, root = place.repo(), place.root
    done: list[object] = []
    runner = threading.Thread(target=lambda: done.append(run_ingest(spark, repo, "clicks", "primary",
                                                                    RunContext(fs, run_id="latency"), seconds=40)))
    runner.start()
    time.sleep(12)  # the stream is up and idle (the landing folder's files were all ingested before)
    hour = START + timedelta(hours=HOURS + 1)
    folder = root / "data" / "clicks" / f"{hour:%Y/%m/%d/%H}"
    lines = "".join(f"{hour + timedelta(seconds=k % 3600):%Y-%m-%dT%H:%M:%S}Z,late-{k},s,/home,{k}\n"
                    for k in range(10_000))
    landing = place.landing
    (landing / ".latency.csv").write_text(lines)
    dropped = time.perf_counter()
    (landing / ".latency.csv").rename(landing / "latency.csv")
    seen = None
    while time.perf_counter() - dropped < 30:
        written = folder.is_dir() and any(p.name.startswith("part-") for p in folder.iterdir())
        if written and spark.read.parquet(f"file://{folder}").count() == 10_000:
            seen = time.perf_counter() - dropped
            break
        time.sleep(0.05)
    runner.join()
    return seen if seen is not None else float("inf")


# --- printing -----------------------------------------------------------------------------------------------------

def say(text: str) -> None:
    print(text, flush=True)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def compare(name: str, records: int, bare: float, ingest: float, target: float, bare_name: str) -> bool:
    """Both times and rates, the ratio and the verdict; whether the target is met."""
    ok = report("ingest_bench", f"{name}: toolkit / bare", ingest / bare, target)
    say(f"  {bare_name + ':':<44} {bare:7.2f} s  {records / bare:10,.0f} records/s")
    say(f"  {'toolkit ingest --once:':<44} {ingest:7.2f} s  {records / ingest:10,.0f} records/s")
    say(f"  {name}: ratio toolkit/bare {ingest / bare:.2f}x (target <= {target}x): {verdict(ok)}")
    return ok


def mib(count: float) -> str:
    return f"{count / 1024 ** 2:,.0f} MiB"


# --- the cases ----------------------------------------------------------------------------------------------------

def warm_up(spark: SparkSession) -> None:
    """Both jobs once on 4 small files, untimed: so that the first timed job does not pay alone for the session's
    first jobs (classes loaded, code compiled by the JIT)."""
    with tempfile.TemporaryDirectory(prefix="ingest-bench-warm-up-", dir=TMP) as scratch:
        place = Place.made(Path(scratch))
        write_files(place.landing, 4, 1000)
        bare_stream(spark, f"file://{place.landing}", f"file://{scratch}/bare", f"file://{scratch}/bare-checkpoint")
        check(toolkit_ingest(spark, place, "warm-up")[1], 4000)


def many_files(spark: SparkSession, scratch: Path, sizes: Sizes) -> list[str]:
    """Cases 1 and 2 (the latency uses the feed that case 1 filled); the names of the targets missed. Case 1 runs
    ROUNDS times, each in a new place, and each job's best time counts: a job's first run at this size pays for
    code the small warm-up did not reach (the bare job's first run was 11 s, its next ones 7 s)."""
    from toolkit.core.storage.hadoop import HadoopFileSystem

    records = sizes.files * sizes.records_per_file
    bares, ingests = [], []
    for n in range(ROUNDS):
        place = Place.made(scratch / f"round-{n + 1}")
        size = write_files(place.landing, sizes.files, sizes.records_per_file)
        bares.append(bare_stream(spark, f"file://{place.landing}", f"file://{place.scratch}/bare",
                                 f"file://{place.scratch}/bare-checkpoint"))
        ingest, result = toolkit_ingest(spark, place, "bench")
        check(result, records)
        ingests.append(ingest)
    say(f"1. {records:,} delimited records ({size / 1e6:.0f} MB) in {sizes.files} landing files, hourly feed "
        f"({HOURS} hours); {result.batches} batch(es), {len(result.instances)} instances, {len(result.closed)} "
        f"closed, {result.moved} files moved to _ingested; the best of {ROUNDS} rounds (bare: "
        f"{', '.join(f'{t:.2f}' for t in bares)} s; toolkit: {', '.join(f'{t:.2f}' for t in ingests)} s)")
    missed = [] if compare("200 files", records, min(bares), min(ingests), 1.2,
                           "bare Structured Streaming (partitionBy)") else ["200 files"]
    seconds = latency(spark, place, HadoopFileSystem(spark))
    ok = report("ingest_bench", "commit latency", seconds, 5, unit="s")
    say(f"2. commit latency, 10,000 records dropped -> readable (--for): {seconds:.2f} s (target < 5 s): "
        f"{verdict(ok)}")
    return missed if ok else [*missed, "commit latency"]


def small_files(spark: SparkSession, place: Place, sizes: Sizes) -> list[str]:
    """Case 3; the names of the targets missed."""
    size = write_files(place.landing, sizes.small_files, sizes.small_records)
    records = sizes.small_files * sizes.small_records
    bare = bare_stream(spark, f"file://{place.landing}", f"file://{place.scratch}/bare",
                       f"file://{place.scratch}/bare-checkpoint")
    ingest, result = toolkit_ingest(spark, place, "bench-small")
    check(result, records)
    say(f"3. {records:,} records in {sizes.small_files:,} small landing files ({size / sizes.small_files:,.0f} bytes "
        f"each on average, {size / 1e6:.0f} MB), default settings: {result.batches} batch(es), "
        f"{len(result.instances)} instances, {result.moved:,} files moved to _ingested")
    name = f"{sizes.small_files:,} files"
    return [] if compare(name, records, bare, ingest, 1.5, "bare Structured Streaming (partitionBy)") else [name]


def one_big_file(sizes: Sizes) -> list[str]:
    """Case 4, in two spark-submit children; the names of the targets missed."""
    with tempfile.TemporaryDirectory(prefix="ingest-bench-big-", dir=TMP) as scratch:
        place = Place.made(Path(scratch))
        began = time.perf_counter()
        size = write_big(place.landing / "clicks-big.csv", sizes.big_lines)
        say(f"4. one landing file of {sizes.big_lines:,} lines ({size / 1e9:.2f} GB, {size / sizes.big_lines:.0f} "
            f"bytes a line, written in {time.perf_counter() - began:.0f} s), driver heap {HEAP}, local[2], a "
            "spark-submit child each")
        bare, ingest = (run_child(kind, place, sizes.big_lines) for kind in ("bare", "toolkit"))
    for kind, found in (("bare spark.read.text (partitionBy)", bare), ("toolkit ingest --once", ingest)):
        if "error" in found:
            say(f"  {kind + ':':<44} failed: {found['error']}")
            continue
        say(f"  {kind + ':':<44} {found['seconds']:7.2f} s  {sizes.big_lines / found['seconds']:10,.0f} records/s  "
            f"JVM peak RSS {mib(found['rss'])}, {found['xmx']} (max heap {mib(found['max_heap'])}), "
            f"{found['gc_seconds']:.1f} s in GC")
    name = "2 GB file"
    if "error" in bare or "error" in ingest:
        say(f"  {name}: FAIL (a child failed)")
        return [name]
    right = ingest["records"] == sizes.big_lines and ingest["rejected"] == 0
    if not right:
        say(f"  the toolkit counted {ingest['records']:,} records and {ingest['rejected']:,} rejected, of "
            f"{sizes.big_lines:,} lines written")
    in_heap = max(bare["max_heap"], ingest["max_heap"]) <= 1024 ** 3
    say(f"  toolkit ingest: {ingest['batches']} batch(es), {ingest['instances']} instances; heap of both "
        f"<= 1 GiB: {in_heap}")
    ratio = ingest["seconds"] / bare["seconds"]
    ok = report("ingest_bench", f"{name}: toolkit / bare", ratio, 1.5) and right and in_heap
    say(f"  {name}: ratio toolkit/bare {ratio:.2f}x (target <= 1.5x, in 1 GiB of heap): {verdict(ok)}")
    return [] if ok else [name]


def run_child(kind: str, place: Place, lines: int) -> dict[str, Any]:
    """This script's `child` sub-command under spark-submit with a 1 GiB driver; its figures, or `error`."""
    from toolkit.core.storage.jvm_classes import jar_path

    python = sys.executable
    command = [str(Path(sys.prefix) / "bin" / "spark-submit"), "--master", "local[2]", "--driver-memory", HEAP,
               "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=2", "--jars", jar_path(),
               str(Path(__file__).resolve()), "child", kind, str(place.scratch), str(lines)]
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": python, "PYSPARK_DRIVER_PYTHON": python}
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False, timeout=3 * 3600)
    except subprocess.TimeoutExpired:
        return {"error": "still running after 3 hours: stopped"}
    for line in done.stdout.splitlines():
        if line.startswith(RESULT):
            found: dict[str, Any] = json.loads(line[len(RESULT):])
            return found
    tail = " | ".join(line.strip() for line in done.stderr.strip().splitlines()[-6:])
    return {"error": f"exit {done.returncode}: {tail}"}


def child(kind: str, scratch: Path, lines: int) -> int:
    """In a spark-submit JVM: the bare job or the toolkit's ingest of the one big file; its figures as a line of
    JSON on stdout, with the JVM's peak RSS and heap read before the session stops."""
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    place = Place(scratch)
    if kind == "bare":
        seconds = bare_batch(spark, f"file://{place.landing}/clicks-big.csv", f"file://{scratch}/bare")
        found: dict[str, Any] = {"records": lines, "rejected": 0}
    else:
        seconds, result = toolkit_ingest(spark, place, "bench-big")
        check(result, lines)
        found = {"records": result.records, "rejected": result.rejected, "batches": result.batches,
                 "instances": len(result.instances)}
    found.update(seconds=seconds, **jvm_memory(spark))
    print(RESULT + json.dumps(found), flush=True)
    spark.stop()
    return 0


def jvm_memory(spark: SparkSession) -> dict[str, Any]:
    """The JVM's peak resident set (VmHWM, bytes), its -Xmx, its max heap (bytes) and its time in GC (seconds)."""
    jvm: Any = spark.sparkContext._jvm
    pid = int(jvm.java.lang.ProcessHandle.current().pid())
    status = Path(f"/proc/{pid}/status").read_text()
    rss = next(int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmHWM:"))
    management = jvm.java.lang.management.ManagementFactory
    xmx = [str(a) for a in management.getRuntimeMXBean().getInputArguments() if str(a).startswith("-Xmx")]
    gc = sum(int(bean.getCollectionTime()) for bean in management.getGarbageCollectorMXBeans()) / 1000
    heap = int(jvm.java.lang.Runtime.getRuntime().maxMemory())
    return {"rss": rss, "xmx": " ".join(xmx) or "no -Xmx", "max_heap": heap, "gc_seconds": gc}


# --- main ---------------------------------------------------------------------------------------------------------

def stopped(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (`timeout`, a CI job cancelled) as an exit: a running child is killed and the scratch folders (2 GB
    and more) are deleted on the way out."""
    raise SystemExit(128 + signum)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="smaller cases, for a quick check")
    commands = parser.add_subparsers(dest="command")
    inner = commands.add_parser("child", help="(internal) one job of case 4, under spark-submit")
    inner.add_argument("kind", choices=["bare", "toolkit"])
    inner.add_argument("scratch", type=Path)
    inner.add_argument("lines", type=int)
    args = parser.parse_args(argv)
    if args.command == "child":
        return child(args.kind, args.scratch, args.lines)
    signal.signal(signal.SIGTERM, stopped)
    quick = args.quick or os.environ.get("INGEST_BENCH_QUICK", "") not in ("", "0")
    sizes = QUICK if quick else FULL

    from pyspark.sql import SparkSession

    from toolkit.core.storage.jvm_classes import jar_path

    say(f"ingest_bench{' --quick' if quick else ''}: {os.cpu_count()} cores, "
        f"{platform.processor() or platform.machine()}, local[2]; load average at the start (1, 5, 15 min): "
        + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "2")
             .config("spark.jars", jar_path()).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        warm_up(spark)
        with tempfile.TemporaryDirectory(prefix="ingest-bench-", dir=TMP) as scratch:
            missed = many_files(spark, Path(scratch), sizes)
        with tempfile.TemporaryDirectory(prefix="ingest-bench-small-", dir=TMP) as scratch:
            missed += small_files(spark, Place.made(Path(scratch)), sizes)
    finally:
        spark.stop()
    missed += one_big_file(sizes)
    say("load average at the end (1, 5, 15 min): " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    say("result: " + ("PASS" if not missed else "FAIL (missed: " + ", ".join(missed) + ")"))
    return 0 if not missed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
