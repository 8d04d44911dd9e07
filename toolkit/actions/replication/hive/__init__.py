"""Hive table export and import: one partition's data files and `_metadata.json` written to a directory on the
source side, then moved into the target table (created when missing) and registered only once complete.

    export_partition(spark, source_catalog, fs, PartitionAddress(db, table, spec), "hdfs://target/staging/x")
    import_partition(spark, target_catalog, fs, "hdfs://target/staging/x", PartitionAddress(db2, table2, spec))

`feeds.feed_partition(feed, cluster, t)` gives a table feed's database, table and spec on a cluster (its `address`
is what these take; `PartitionAddress` is in toolkit/core/storage/catalog_records.py). The
entrypoints `entrypoints/hive_export.py` and `entrypoints/hive_import.py` are built on these (hive_entry.py).
Importing this package does not import pyspark.
"""

from toolkit.actions.replication.hive.export import ExportResult, export_partition
from toolkit.actions.replication.hive.feeds import FeedPartition, feed_partition
from toolkit.actions.replication.hive.importer import ImportOptions, ImportResult, import_partition, read_export
from toolkit.actions.replication.hive.metadata import DATA_DIR, METADATA_NAME, ExportMetadata

__all__ = ["DATA_DIR", "METADATA_NAME", "ExportMetadata", "ExportResult", "FeedPartition", "ImportOptions",
           "ImportResult", "export_partition", "feed_partition", "import_partition", "read_export"]
