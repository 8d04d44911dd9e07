"""Load daily partitions of the `visits` table feed into a cluster's Hive metastore (run with spark-submit),
or with --show list the table's partitions, for trying table retention and replication on one machine.

    spark-submit demo/load_visits.py --repo . --cluster primary --start 2026-02-20 --days 45
    spark-submit demo/load_visits.py --repo . --cluster primary --show

The metastore is the cluster's `registry` interface; the database's folder is under the cluster's root.
"""

from __future__ import annotations

import argparse
import os
from datetime import date, timedelta

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from toolkit.core.entities.repo import ConfigRepo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", required=True, help="The config repo.")
    parser.add_argument("--cluster", required=True, help="The cluster whose metastore gets the table.")
    parser.add_argument("--start", type=date.fromisoformat, help="First day, yyyy-MM-dd.")
    parser.add_argument("--days", type=int, default=0, help="How many daily partitions.")
    parser.add_argument("--show", action="store_true", help="Only list the partitions.")
    args = parser.parse_args()
    cluster = ConfigRepo.load(args.repo).cluster(args.cluster)
    builder = (SparkSession.builder.appName("load-visits")
               .config("spark.hadoop.hive.metastore.uris", cluster.registry_endpoint)
               .config("spark.hadoop.hive.exec.dynamic.partition.mode", "nonstrict"))
    if os.environ.get("SPARK_LOCAL_IP"):
        builder = builder.config("spark.driver.host", os.environ["SPARK_LOCAL_IP"])
    spark = builder.enableHiveSupport().getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    if args.show:
        partitions = [row[0] for row in spark.sql("SHOW PARTITIONS web.visits").collect()]
        print(f"web.visits on {args.cluster}: {len(partitions)} partitions, {partitions[0]} .. {partitions[-1]}"
              if partitions else f"web.visits on {args.cluster}: no partitions")
        return
    spark.sql(f"CREATE DATABASE IF NOT EXISTS web LOCATION '{cluster.write_endpoint}/warehouse/web.db'")
    spark.sql("CREATE TABLE IF NOT EXISTS web.visits (user STRING, pages INT, seconds INT) "
              "PARTITIONED BY (ds STRING) STORED AS PARQUET")
    days = [(args.start + timedelta(days=k)).isoformat() for k in range(args.days)]
    rows = (spark.createDataFrame([(day,) for day in days], "ds STRING")
            .crossJoin(spark.range(50).withColumnRenamed("id", "n"))
            .select(F.concat(F.lit("u"), F.col("n").cast("string")).alias("user"),
                    (F.abs(F.hash("ds", "n")) % 20 + 1).cast("int").alias("pages"),
                    (F.abs(F.hash("n", "ds")) % 3600).cast("int").alias("seconds"), "ds"))
    rows.coalesce(1).write.insertInto("web.visits", overwrite=False)
    print(f"loaded {len(days)} daily partitions of web.visits on {args.cluster}, ds={days[0]} .. ds={days[-1]}")


if __name__ == "__main__":
    main()
