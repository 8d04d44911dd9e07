"""The job `toolkit jvm-archive` runs under spark-submit (toolkit/services/runtime/class_archive.py): it touches, once
and small, what the actions touch in a driver, so that the archive its JVM dumps holds their classes: a session with the
toolkit's jar, Parquet, ORC, JSON, CSV and text, Spark SQL, the Hadoop FileSystem API, Spark's JDBC source (on an
in-memory Derby database, Spark's own) and Hive support with a metastore of its own in the scratch folder. It runs in
local mode whatever master spark-submit was given: its files are the scratch folder's on this host.

    spark-submit toolkit/services/runtime/class_archive_job.py SCRATCH
"""

from __future__ import annotations

import sys


def main(scratch: str) -> None:
    from pyspark.sql import SparkSession

    from toolkit.core.storage.jvm_classes import jar_path

    spark = (SparkSession.builder.master("local[1]").appName("feed-toolkit-class-archive")
             .config("spark.ui.enabled", "false")
             .config("spark.jars", jar_path()).config("spark.sql.warehouse.dir", f"file://{scratch}/warehouse")
             .config("spark.hadoop.javax.jdo.option.ConnectionURL",
                     f"jdbc:derby:;databaseName={scratch}/metastore_db;create=true")
             .enableHiveSupport().getOrCreate())
    frame = spark.range(200).selectExpr("id", "cast(id AS string) AS name", "current_timestamp() AS at",
                                        "cast(id AS decimal(12, 2)) AS amount", "id % 3 = 0 AS flag")
    for kind in ("parquet", "orc", "json", "csv"):
        frame.write.mode("overwrite").format(kind).save(f"file://{scratch}/{kind}")
        spark.read.format(kind).load(f"file://{scratch}/{kind}").groupBy().count().collect()
    frame.select("name").write.mode("overwrite").text(f"file://{scratch}/text")
    spark.read.text(f"file://{scratch}/text").count()

    url = "jdbc:derby:memory:archive;create=true"
    frame.select("id", "name").write.jdbc(url, "rows_out", mode="overwrite")
    spark.read.jdbc(url, "rows_out", column="id", lowerBound=0, upperBound=200, numPartitions=2).count()

    jvm = spark._jvm
    assert jvm is not None
    conf = spark._jsc.hadoopConfiguration()
    folder = jvm.org.apache.hadoop.fs.Path(f"file://{scratch}/parquet")
    files = folder.getFileSystem(conf)
    listed = files.listStatus(folder)
    moved = jvm.org.apache.hadoop.fs.Path(f"file://{scratch}/moved")
    files.rename(folder, moved)
    files.delete(moved, True)
    assert len(listed) > 0

    spark.sql("CREATE TABLE archived (id BIGINT, name STRING) PARTITIONED BY (d STRING) STORED AS PARQUET")
    spark.sql("INSERT INTO archived PARTITION (d = '1') SELECT id, cast(id AS string) FROM range(3)")
    spark.sql("SHOW PARTITIONS archived").collect()
    spark.sql("SELECT d, count(*) FROM archived GROUP BY d").collect()
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
