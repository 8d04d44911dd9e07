"""Benchmark of streaming ingest: 2 million delimited records (about 200 MB) in 200 landing files, ingested with
`--once` (availableNow) into an hourly file feed, beside a bare Structured Streaming job in the same Spark session
that reads the same files and writes the same hours with `partitionBy` (no commit protocol, no flags, no dead
letters, no ledger). Then the commit latency: with the stream running (`--for`), a file of 10,000 records
dropped into the landing folder, and the time until its rows are readable in their instance.
Targets (issue 16): the ingest within 1.5x of the bare job; the latency under 5 s. No figure is published for
HCatalog streaming, the Flume Hive sink or NiFi's Hive streaming processors; these are printed with the hardware.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import textwrap
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from toolkit.entities.repo import ConfigRepo  # noqa: E402

FILES, RECORDS_PER_FILE, HOURS = 200, 10_000, 48
START = datetime(2026, 1, 1, tzinfo=timezone.utc)
PAGES = ["/home", "/cart", "/pay", "/search?q=shoes", "/product/1234567", "/help"]


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


def write_file(folder: Path, name: str, first: int, count: int) -> int:
    """`count` records (one every few seconds from record `first` on), written hidden then renamed in."""
    lines = []
    for k in range(first, first + count):
        t = START + timedelta(seconds=(k * HOURS * 3600) // (FILES * RECORDS_PER_FILE))
        lines.append(f"{t:%Y-%m-%dT%H:%M:%S}Z,user-{k % 50_000:05d},s{k % 7919:04d}-{k % 104_729:06d},"
                     f"{PAGES[k % len(PAGES)]}/{'x' * (k % 40)},{k % 3000}\n")
    text = "".join(lines)
    hidden = folder / f".{name}"
    hidden.write_text(text)
    hidden.rename(folder / name)
    return len(text.encode())


def bare_job(spark, landing: str, out: str, checkpoint: str) -> float:  # type: ignore[no-untyped-def]
    from pyspark.sql import functions as F

    began = time.perf_counter()
    parts = F.split("value", ",")
    frame = (spark.readStream.format("text").load(landing)
             .select(parts[0].alias("ts"), parts[1].alias("user"), parts[2].alias("session"), parts[3].alias("page"),
                     parts[4].cast("int").alias("ms"))
             .withColumn("t", F.to_timestamp("ts"))
             .withColumn("year", F.date_format("t", "yyyy")).withColumn("month", F.date_format("t", "MM"))
             .withColumn("day", F.date_format("t", "dd")).withColumn("hour", F.date_format("t", "HH")).drop("t"))
    query = (frame.writeStream.format("parquet").partitionBy("year", "month", "day", "hour")
             .option("checkpointLocation", checkpoint).option("path", out).trigger(availableNow=True).start())
    query.awaitTermination()
    return time.perf_counter() - began


def latency(spark, repo: ConfigRepo, root: Path, fs) -> float:  # type: ignore[no-untyped-def]
    """Seconds from a 10,000-record file renamed into the landing folder to its rows readable in their hour."""
    from toolkit.ingest.runner import run_ingest

    done: list[object] = []
    runner = threading.Thread(target=lambda: done.append(run_ingest(spark, repo, "clicks", "primary", fs,
                                                                    run_id="latency", seconds=40)))
    runner.start()
    time.sleep(12)  # the stream is up and idle (the landing folder's files were all ingested before)
    hour = START + timedelta(hours=HOURS + 1)
    folder = root / "data" / "clicks" / f"{hour:%Y/%m/%d/%H}"
    lines = "".join(f"{hour + timedelta(seconds=k % 3600):%Y-%m-%dT%H:%M:%S}Z,late-{k},s,/home,{k}\n"
                    for k in range(10_000))
    landing = root / "landing" / "clicks"
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


def main() -> int:
    from pyspark.sql import SparkSession

    from toolkit.ingest.runner import run_ingest
    from toolkit.storage.hadoop import HadoopFileSystem
    from toolkit.storage.jvm_classes import jar_path

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2").config("spark.jars", jar_path()).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        root = scratch / "root"
        landing = root / "landing" / "clicks"
        landing.mkdir(parents=True)
        size = sum(write_file(landing, f"clicks-{n:03d}.csv", n * RECORDS_PER_FILE, RECORDS_PER_FILE)
                   for n in range(FILES))
        records = FILES * RECORDS_PER_FILE
        repo = make_repo(scratch, root)
        bare = bare_job(spark, f"file://{landing}", f"file://{scratch}/bare", f"file://{scratch}/bare-checkpoint")
        fs = HadoopFileSystem(spark)
        began = time.perf_counter()
        result = run_ingest(spark, repo, "clicks", "primary", fs, run_id="bench")
        ingest = time.perf_counter() - began
        assert result.records == records and result.rejected == 0, result.counters()
        seconds = latency(spark, repo, root, fs)
    spark.stop()
    print(f"ingest_bench: {records:,} delimited records ({size / 1e6:.0f} MB) in {FILES} landing files, hourly feed "
          f"({HOURS} hours); {os.cpu_count()} cores, {platform.processor() or platform.machine()}, local[2]")
    print(f"  bare Structured Streaming (partitionBy):   {bare:6.2f} s  {records / bare:10,.0f} records/s")
    print(f"  toolkit ingest --once:                     {ingest:6.2f} s  {records / ingest:10,.0f} records/s  "
          f"({result.batches} batch(es), {len(result.instances)} instances, {len(result.closed)} closed)")
    print(f"  ratio ingest/bare: {ingest / bare:.2f}x   (target <= 1.5x)")
    print(f"  commit latency, 10,000 records dropped -> readable (--for): {seconds:.2f} s   (target < 5 s)")
    ok = ingest <= 1.5 * bare and seconds < 5
    print("  result:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
