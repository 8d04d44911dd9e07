"""A Spark application as Falcon's spark engine ran them: plain PySpark, no toolkit import, its inputs, output
and options on the command line (`top_pages_app.py INPUT_PATHS OUTPUT_PATH N`).

INPUT_PATHS is the comma-separated paths of the input window, OUTPUT_PATH where to write (the process runner
publishes it once the application exits 0), N how many pages to keep.
"""

import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def main(inputs: str, output: str, count: str) -> None:
    spark = SparkSession.builder.getOrCreate()
    daily = spark.read.json(inputs.split(","))
    top = daily.orderBy(F.col("clicks").desc(), F.col("page")).limit(int(count)).select("page", "clicks")
    top.coalesce(1).write.mode("overwrite").json(output)
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:4])
