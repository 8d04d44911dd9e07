"""A class-data sharing archive of the classes a spark-submit of the tests loads (tests/jvm_options.py), made once
by a spark-submit of a small job that touches what the actions touch (the session, Parquet, JSON, CSV, Spark SQL,
Hive support with a local metastore) with `-XX:ArchiveClassesAtExit`, and kept in pytest's cache under a key of the
Java runtime, Spark's jars and the JVM options: a later test session on the same machine reuses it, a changed JDK or
Spark makes another. The JVM checks an archive against its class path and runtime when it maps it and runs without
it (a warning on stderr) when they differ, so an archive is only ever a speed-up."""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from pathlib import Path

from tests.integration.spark_submit import SPARK_SUBMIT, environment
from tests.jvm_options import SHORT_LIVED

JOB = """
import sys
from pyspark.sql import SparkSession
scratch = sys.argv[1]
spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
         .config("spark.sql.warehouse.dir", scratch + "/warehouse").enableHiveSupport().getOrCreate())
frame = spark.range(100).selectExpr("id", "cast(id as string) AS name", "current_timestamp() AS at")
for kind in ("parquet", "json", "csv"):
    frame.write.mode("overwrite").format(kind).save(f"{scratch}/{kind}")
    spark.read.format(kind).load(f"{scratch}/{kind}").groupBy().count().collect()
spark.sql("CREATE TABLE t (id BIGINT) PARTITIONED BY (d STRING) STORED AS PARQUET")
spark.sql("INSERT INTO t PARTITION (d = '1') SELECT id FROM range(3)")
spark.sql("SHOW PARTITIONS t").collect()
spark.stop()
"""


def archive_key() -> str:
    """The Java runtime, Spark's jars and the JVM options the archive is made for."""
    digest = hashlib.sha256(SHORT_LIVED.encode())
    java = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=60)
    digest.update(java.stderr.encode())
    for jar in sorted((SPARK_SUBMIT.parents[1] / "jars").glob("*.jar")):
        digest.update(f"{jar.name}:{jar.stat().st_size}\n".encode())
    return digest.hexdigest()[:16]


def class_archive(cache: Path, timeout: float = 600) -> Path | None:
    """The archive for this machine's JDK and Spark, made when there is none; None when it cannot be made (the
    tests then run without one)."""
    archive = cache / f"spark-{archive_key()}.jsa"
    if archive.is_file():
        return archive
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="jvm-archive-") as scratch:
        job, made = Path(scratch) / "job.py", Path(scratch) / "spark.jsa"
        job.write_text(JOB)
        env = {**environment(),
               "SPARK_SUBMIT_OPTS": f"{SHORT_LIVED} -XX:ArchiveClassesAtExit={made} -Dderby.system.home={scratch}"}
        try:
            done = subprocess.run([str(SPARK_SUBMIT), str(job), scratch], cwd=scratch, env=env, capture_output=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        if done.returncode != 0 or not made.is_file():
            return None
        os.replace(made, archive)  # whole or not at all, should two sessions make one at once
    return archive
