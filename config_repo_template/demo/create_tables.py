"""Create the Hive tables the template's processes write into (run with spark-submit), in a cluster's metastore:
`web.clicks_daily`, the table of the `clicks-daily-table` feed. A process publishes partitions; the table
itself is designed and created once, by its owner, as here.

    spark-submit demo/create_tables.py --repo . --cluster primary

The metastore is the cluster's `registry` interface; the database's folder is under the cluster's root.
"""

from __future__ import annotations

import argparse
import os

from pyspark.sql import SparkSession

from toolkit.core.entities.repo import ConfigRepo

TABLES = (
    "CREATE TABLE IF NOT EXISTS web.clicks_daily (page STRING, clicks BIGINT, peak_hourly_users BIGINT, "
    "peak_clicks_3h BIGINT, hours_with_clicks BIGINT) PARTITIONED BY (ds STRING) STORED AS PARQUET",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", required=True, help="The config repo.")
    parser.add_argument("--cluster", required=True, help="The cluster whose metastore gets the tables.")
    args = parser.parse_args()
    cluster = ConfigRepo.load(args.repo).cluster(args.cluster)
    builder = SparkSession.builder.appName("create-tables")
    if cluster.registry_endpoint:
        builder = builder.config("spark.hadoop.hive.metastore.uris", cluster.registry_endpoint)
    if os.environ.get("SPARK_LOCAL_IP"):
        builder = builder.config("spark.driver.host", os.environ["SPARK_LOCAL_IP"])
    spark = builder.enableHiveSupport().getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    spark.sql(f"CREATE DATABASE IF NOT EXISTS web LOCATION '{cluster.write_endpoint}/warehouse/web.db'")
    for statement in TABLES:
        spark.sql(statement)
    print(f"tables ready on {args.cluster}: web.clicks_daily")


if __name__ == "__main__":
    main()
