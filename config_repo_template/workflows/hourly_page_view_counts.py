"""Hourly page-view counts: per page, the views of the run's hour and their median render time.

Run by the toolkit's pyspark engine, which calls `run(spark, ctx)` with `ctx.inputs["views"]`, the path of
the hour of page views that ingest closed, and `ctx.outputs["counts"]`, the path of the output instance.
"""

from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def run(spark: SparkSession, ctx) -> None:
    views = spark.read.parquet(*ctx.inputs["views"])
    counts = (views.groupBy("page")
              .agg(F.count("*").alias("views"), F.percentile_approx("ms", 0.5).alias("median_ms"))
              .orderBy("page"))
    counts.write.mode("overwrite").json(ctx.outputs["counts"])
