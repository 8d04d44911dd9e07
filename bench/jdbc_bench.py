"""Benchmark of the database import and export (entrypoints/import.py, export.py) against Spark's own JDBC calls,
on a real PostgreSQL 15 started for the run (toolkit/devtools/local_database.py), every side a whole spark-submit
(local[2], the same partitioning and fetch size, the JDBC driver on --jars as `toolkit schedule` passes it, and
the class-data archive `toolkit jvm-archive` makes, made at the start of the run, mapped by every driver as the
schedule of a cluster with `jvm.class-archive` maps it), alternating rounds:

1. a full read of 10 million rows: `import.py` of an incremental feed's first instance (every row up to the
   largest id, split by id into 4 slices, 10,000 rows a fetch), rerun with --force for each round, beside a bare
   `spark.read.jdbc(...).write.parquet(...)` with the same slices; target: within 1.15x. The same side's rounds
   spread by a fifth on two cores shared with PostgreSQL, more than the import's own cost: this part runs five
   rounds, the two sides going first in turn;
2. an incremental import of the 10,000 rows added since (a forced rerun of that instance for each round, which
   reads the same range), beside an empty spark-submit that starts a SparkSession (target: under 5 s beyond it)
   and beside a bare read.jdbc + write.parquet of the same rows (what Spark itself costs beyond the empty session;
   informative target: the import within 2 s of it); the three again without the archive, for comparison;
3. an export of 1 million rows (`load: snapshot`: a staging table, then one transaction), beside a bare
   `df.write.jdbc(...)` appending the same rows to a table like the target's; target: within 1.5x, the price of the
   transaction.

Run: .venv/bin/python bench/jdbc_bench.py [--rows N] [--export-rows N] [--rounds R] [--full-rounds R]
     [--no-archive]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.figures import report  # noqa: E402
from toolkit.devtools.local_database import DatabaseServer  # noqa: E402
from toolkit.services.runtime.class_archive import make_archive, mapping_options  # noqa: E402

SPARK_SUBMIT = Path(str(__import__("pyspark").__file__)).parent / "bin" / "spark-submit"
SLICES, FETCH = 4, 10_000

BARE_IMPORT = f"""
import sys
from pyspark.sql import SparkSession
url, user, password, out, last = sys.argv[1:6]
spark = SparkSession.builder.getOrCreate()
(spark.read.jdbc(url, "orders", column="id", lowerBound=1, upperBound=int(last), numPartitions={SLICES},
                 properties={{"user": user, "password": password, "driver": "org.postgresql.Driver",
                              "fetchsize": "{FETCH}"}})
 .write.parquet(out))
spark.stop()
"""
BARE_EXPORT = """
import sys
from pyspark.sql import SparkSession
url, user, password, source = sys.argv[1:5]
spark = SparkSession.builder.getOrCreate()
(spark.read.parquet(source).write.option("batchsize", "10000")
 .jdbc(url, "bare_totals", mode="append", properties={"user": user, "password": password,
                                                       "driver": "org.postgresql.Driver"}))
spark.stop()
"""
BARE_STEP = """
import sys
from pyspark.sql import SparkSession
url, user, password, out, after = sys.argv[1:6]
spark = SparkSession.builder.getOrCreate()
(spark.read.jdbc(url, f"(SELECT * FROM orders WHERE id > {after}) q",
                 properties={"user": user, "password": password, "driver": "org.postgresql.Driver",
                             "fetchsize": "10000"})
 .write.parquet(out))
spark.stop()
"""
EMPTY = """
from pyspark.sql import SparkSession
SparkSession.builder.getOrCreate().stop()
"""


ARCHIVE: list[Path] = []  # the class-data archive every driver maps, once made


def submit(*args: str, jar: str | None = None, archive: bool = True) -> tuple[float, str]:
    """Seconds and stdout of a whole spark-submit, its driver mapping the run's archive when there is one and
    `archive`; exit on failure."""
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    maps = ("--driver-java-options", mapping_options(str(ARCHIVE[0]))) if ARCHIVE and archive else ()
    command = [str(SPARK_SUBMIT), "--master", "local[2]", "--conf", "spark.ui.enabled=false", *maps,
               *(("--jars", jar) if jar else ()), *args]
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"jdbc_bench: {' '.join(command[-6:])} failed ({done.returncode}):\n{done.stdout[-2000:]}"
                         f"{done.stderr[-3000:]}")
    return elapsed, done.stdout


def make_repo(scratch: Path, server: DatabaseServer) -> tuple[Path, Path]:
    repo, root = scratch / "conf", scratch / "cluster"
    for kind in ("clusters", "feeds", "datasources"):
        (repo / kind).mkdir(parents=True)
    (root / "secrets").mkdir(parents=True)
    (root / "secrets" / "db.password").write_text(server.password)
    (repo / "clusters" / "lake.yaml").write_text(
        f"kind: cluster\nname: lake\ninterfaces:\n  write: {{endpoint: \"{root.as_uri()}\"}}\n"
        "locations: {working: /working, staging: /staging}\n")
    (repo / "datasources" / "shop-db.yaml").write_text(f"""\
kind: datasource
name: shop-db
type: postgres
interfaces:
  readonly: {{endpoint: "{server.jdbc_url('shop')}"}}
  write: {{endpoint: "{server.jdbc_url('shop')}"}}
  credential: {{type: password-file, userName: {server.user}, passwordFile: /secrets/db.password}}
driver: {{clazz: {server.driver_class}, jar: ["{server.driver_jar}"]}}
""")
    validity = "    validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}\n"
    (repo / "feeds" / "orders.yaml").write_text(f"""\
kind: feed
name: orders
frequency: hours(1)
clusters:
  - name: lake
{validity}    import:
      source: {{name: shop-db, tableName: orders, extract: {{type: incremental, mergepolicy: append}}}}
      arguments: {{check-column: id, split-by: id, num-mappers: "{SLICES}", fetch-size: "{FETCH}"}}
locations: {{data: "/data/orders/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"}}
""")
    (repo / "feeds" / "totals.yaml").write_text(f"""\
kind: feed
name: totals
frequency: days(1)
clusters:
  - name: lake
{validity}    export:
      target: {{name: shop-db, tableName: totals, load: {{type: snapshot}}}}
      arguments: {{batch-size: "10000"}}
locations: {{data: "/data/totals/${{YEAR}}/${{MONTH}}/${{DAY}}"}}
""")
    return repo, root


def action(entrypoint: str, repo: Path, feed: str, time_: str, force: bool,
           jar: str, archive: bool = True) -> tuple[float, dict[str, object]]:
    """The entrypoint as `toolkit schedule` calls it: the datasource's driver on --jars."""
    seconds, stdout = submit(str(ROOT / "entrypoints" / f"{entrypoint}.py"), "--repo", str(repo), "--feed", feed,
                             "--cluster", "lake", "--time", time_, *(("--force",) if force else ()), jar=jar,
                             archive=archive)
    return seconds, json.loads(stdout.strip().splitlines()[-1])


def rounds(values: list[float]) -> str:
    return ", ".join(f"{value:.2f}" for value in values)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--new-rows", type=int, default=10_000)
    parser.add_argument("--export-rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--full-rounds", type=int, default=5,
                        help="rounds of the full read, whose times spread by a fifth from one round to the next here")
    parser.add_argument("--no-archive", action="store_true", help="run every driver without a class-data archive")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="jdbc_bench-", dir="/tmp"))
    if not args.no_archive:
        made = make_archive(scratch / "spark.jsa", str(SPARK_SUBMIT),
                            environment={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"})
        ARCHIVE.append(made.path)
        print(f"jdbc_bench: class-data archive made in {made.seconds:.0f} s ({made.size / 2 ** 20:.0f} MiB), "
              "mapped by every driver below unless said")
    server = DatabaseServer.start("postgres", scratch / "postgres")
    try:
        server.create_database("shop")
        sql = lambda text: server.execute(text, database="shop")  # noqa: E731 - as the administrator
        began = time.perf_counter()
        sql("CREATE TABLE orders (id bigint PRIMARY KEY, customer text, amount numeric(10,2), note text)")
        for first in range(1, args.rows + 1, 1_000_000):  # a statement a million rows: the client's timeout
            sql(f"INSERT INTO orders SELECT g, 'customer ' || g, (g % 1000) + 0.25, 'note' FROM "
                f"generate_series({first}, {min(first + 999_999, args.rows)}) g")
        sql("VACUUM ANALYZE orders")
        sql(f"GRANT ALL ON ALL TABLES IN SCHEMA public TO {server.user}")
        sql(f"GRANT ALL ON SCHEMA public TO {server.user}")
        repo, root = make_repo(scratch, server)
        bare_import, bare_export, empty = (scratch / "bare_import.py", scratch / "bare_export.py", scratch / "empty.py")
        bare_import.write_text(BARE_IMPORT)
        bare_export.write_text(BARE_EXPORT)
        empty.write_text(EMPTY)
        print(f"jdbc_bench: PostgreSQL 15 on loopback, {args.rows:,} rows in orders (made in "
              f"{time.perf_counter() - began:.0f} s); spark-submit --master local[2], {SLICES} slices of id, "
              f"{FETCH:,} rows a fetch; medians of alternating rounds ({args.full_rounds} of the full read, "
              f"either side first in turn; {args.rounds} of the others)")
        # 1. the full read: the two sides take turns at going first, so that neither always runs right after the
        # other's writes (the page cache writing them back, PostgreSQL's buffers warm from the other's read)
        bare, ours = [], []

        def bare_round(k: int) -> None:
            out = scratch / f"bare-{k}"
            bare.append(submit(str(bare_import), server.jdbc_url("shop"), server.user, server.password, str(out),
                               str(args.rows), jar=str(server.driver_jar))[0])
            shutil.rmtree(out, ignore_errors=True)

        def import_round(k: int) -> None:
            seconds, status = action("import", repo, "orders", "2026-01-01T00:00Z", force=k > 0,
                                     jar=str(server.driver_jar))
            ours.append(seconds)
            assert status["rows"] == args.rows, status

        for k in range(args.full_rounds):
            for side in ((bare_round, import_round) if k % 2 == 0 else (import_round, bare_round)):
                side(k)
        full = statistics.median(ours) / statistics.median(bare)
        print(f"  1. bare read.jdbc + write.parquet:     {statistics.median(bare):7.2f} s   (rounds: {rounds(bare)})")
        print(f"     import.py (incremental, first):     {statistics.median(ours):7.2f} s   (rounds: {rounds(ours)})")
        full_ok = report("jdbc_bench", "import of 10M rows / bare read+write", full, 1.15)
        print(f"     ratio import / bare: {full:.2f}x (target <= 1.15x)  {'PASS' if full_ok else 'FAIL'}")
        # 2. the incremental step
        sql(f"INSERT INTO orders SELECT g, 'customer ' || g, (g % 1000) + 0.25, 'note' FROM "
            f"generate_series({args.rows + 1}, {args.rows + args.new_rows}) g")
        bare_step = scratch / "bare_step.py"
        bare_step.write_text(BARE_STEP)

        def step_rounds(archive: bool, forced: bool) -> tuple[list[float], list[float], list[float]]:
            """Alternating rounds of the three; the import's first round is the instance's first import unless
            `forced` (then a rerun, as the later rounds)."""
            base, small, step = [], [], []
            for k in range(args.rounds + 1):
                base.append(submit(str(empty), archive=archive)[0])
                out = scratch / f"bare-step-{k}"
                small.append(submit(str(bare_step), server.jdbc_url("shop"), server.user, server.password,
                                    str(out), str(args.rows), jar=str(server.driver_jar), archive=archive)[0])
                shutil.rmtree(out, ignore_errors=True)
                seconds, status = action("import", repo, "orders", "2026-01-01T01:00Z", force=k > 0 or forced,
                                         jar=str(server.driver_jar), archive=archive)
                step.append(seconds)
                assert status["rows"] == args.new_rows, status
            return base, small, step

        def print_step(base: list[float], small: list[float], step: list[float]) -> None:
            floor = statistics.median(small) - statistics.median(base)
            print(f"     empty spark-submit (a SparkSession):   {statistics.median(base):7.2f} s   "
                  f"(rounds: {rounds(base)})")
            print(f"     bare read.jdbc + write.parquet of them: {statistics.median(small):7.2f} s   (rounds: "
                  f"{rounds(small)}): {floor:+.2f} s beyond the empty one")
            print(f"     import.py of {args.new_rows:,} new rows:      {statistics.median(step):7.2f} s   "
                  f"(rounds: {rounds(step)})")

        base, small, step = step_rounds(archive=True, forced=False)
        beyond = statistics.median(step) - statistics.median(base)
        print(f"  2. an incremental import{' (every driver mapping the archive)' if ARCHIVE else ''}:")
        print_step(base, small, step)
        step_ok = report("jdbc_bench", "incremental import of 10,000 rows - empty spark-submit", beyond, 5.0,
                         unit="s")
        report("jdbc_bench", "incremental import of 10,000 rows - bare read+write of them",
               statistics.median(step) - statistics.median(small), 2.0, unit="s")
        print(f"     beyond the empty spark-submit: {beyond:+.2f} s (target < 5 s)  {'PASS' if step_ok else 'FAIL'}; "
              f"beyond the bare read and write of the same rows: "
              f"{statistics.median(step) - statistics.median(small):+.2f} s")
        if ARCHIVE:
            plain = step_rounds(archive=False, forced=True)
            print("     the same without the archive (informative):")
            print_step(*plain)
            print(f"     beyond the empty spark-submit: "
                  f"{statistics.median(plain[2]) - statistics.median(plain[0]):+.2f} s")
        # 3. the export
        source = root / "data" / "totals" / "2026" / "01" / "01"
        writer = scratch / "write_totals.py"
        writer.write_text("import sys\nfrom pyspark.sql import SparkSession\n"
                          "spark = SparkSession.builder.getOrCreate()\n"
                          "spark.read.parquet(sys.argv[1]).limit(int(sys.argv[2])).coalesce(2)"
                          ".write.parquet(sys.argv[3])\nspark.stop()\n")
        submit(str(writer), str(root / "data" / "orders" / "2026" / "01" / "01" / "00"), str(args.export_rows),
               str(source))
        sql("CREATE TABLE totals (id bigint PRIMARY KEY, customer text, amount numeric(10,2), note text)")
        sql("CREATE TABLE bare_totals (id bigint PRIMARY KEY, customer text, amount numeric(10,2), note text)")
        sql(f"GRANT ALL ON ALL TABLES IN SCHEMA public TO {server.user}")
        bare, ours = [], []
        for k in range(args.rounds):
            sql("TRUNCATE bare_totals")
            bare.append(submit(str(bare_export), server.jdbc_url("shop"), server.user, server.password,
                               str(source), jar=str(server.driver_jar))[0])
            seconds, status = action("export", repo, "totals", "2026-01-01T00:00Z", force=k > 0,
                                     jar=str(server.driver_jar))
            ours.append(seconds)
            assert status["rows"] == args.export_rows, status
        loaded = int(sql("SELECT count(*) FROM totals").strip())
        export = statistics.median(ours) / statistics.median(bare)
        print(f"  3. bare df.write.jdbc of {args.export_rows:,} rows:  {statistics.median(bare):7.2f} s   "
              f"(rounds: {rounds(bare)})")
        print(f"     export.py (staging, one transaction): {statistics.median(ours):7.2f} s   "
              f"(rounds: {rounds(ours)}); rows in the target: {loaded:,}")
        export_ok = report("jdbc_bench", "export of 1M rows / bare write.jdbc", export, 1.5)
        print(f"     ratio export / bare: {export:.2f}x (target <= 1.5x)  {'PASS' if export_ok else 'FAIL'}")
        passed = full_ok and step_ok and export_ok
        print(f"  result: {'PASS' if passed else 'FAIL'}")
        return 0 if passed else 1
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
