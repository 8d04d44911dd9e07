"""How many orders the feed `shop-orders` holds in the hours given, and how many distinct order ids: the demo's
check that an import killed and run again lost and repeated no row. Run in the demo's Spark driver (`make demo`).

    spark-submit count_orders.py ROOT 2026-01-01T00:00Z 2026-01-01T01:00Z ...
"""

from __future__ import annotations

import sys
from datetime import datetime

from pyspark.sql import SparkSession

root, hours = sys.argv[1], sys.argv[2:]
spark = SparkSession.builder.getOrCreate()
folders = [f"file://{root}/data/shop-orders/{datetime.strptime(hour, '%Y-%m-%dT%H:%MZ'):%Y/%m/%d/%H}" for hour in hours]
orders = spark.read.parquet(*folders)
print(f"{orders.count()} {orders.select('order_id').distinct().count()}")
