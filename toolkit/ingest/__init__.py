"""Streaming ingest: records that producers drop as files in a feed's landing location become its instances
(Hive's streaming API, the Spark way; `records` turns landing lines into typed and rejected records)."""
