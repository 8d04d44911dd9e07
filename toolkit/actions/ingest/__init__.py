"""Streaming ingest: records that producers drop as files into a feed's landing folder, committed into the
feed's instances in micro-batches, exactly once (runner.py, commit.py, closing.py; records.py parses them)."""
