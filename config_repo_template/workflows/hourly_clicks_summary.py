"""Hourly clicks summary: per page, the clicks and distinct users of the run's hour, and the clicks of
the trailing three hours.

Run by the toolkit's pyspark engine, which calls `run(spark, ctx)` with `ctx.inputs["clicks"]`, the
paths of the input window (oldest first, so the last one is the run's own hour), and
`ctx.outputs["summary"]`, the path of the output instance to write.
"""

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

# Declared rather than inferred, so that an hour without clicks reads as empty instead of failing.
CLICK_SCHEMA = StructType(
    [
        StructField("ts", StringType()),
        StructField("user", StringType()),
        StructField("page", StringType()),
    ]
)


def run(spark: SparkSession, ctx) -> None:
    paths = list(ctx.inputs["clicks"])
    this_hour = _read_clicks(spark, paths[-1:])
    window = _read_clicks(spark, paths)
    hourly = this_hour.groupBy("page").agg(
        F.count("*").alias("clicks"),
        F.countDistinct("user").alias("users"),
    )
    trailing = window.groupBy("page").agg(F.count("*").alias("clicks_3h"))
    summary = (
        trailing.join(hourly, on="page", how="left")
        .fillna(0, subset=["clicks", "users"])
        .select("page", "clicks", "users", "clicks_3h")
        .orderBy("page")
    )
    summary.write.mode("overwrite").json(ctx.outputs["summary"])


def _read_clicks(spark: SparkSession, paths: list[str]) -> DataFrame:
    clicks = spark.read.schema(CLICK_SCHEMA).json(paths)
    return clicks.where(F.col("page").isNotNull())
