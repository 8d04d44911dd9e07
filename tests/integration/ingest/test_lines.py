"""Landing files become numbered lines: LF and CRLF ends, a final line end, blank lines, an empty file."""

from __future__ import annotations

from chispa import assert_df_equality
from pyspark.sql import SparkSession

from toolkit.ingest.lines import lines_of

LINES = "value string, file string, line long"


def test_lines_are_numbered_per_file_and_the_final_line_end_is_no_line(spark: SparkSession) -> None:
    files = spark.createDataFrame([("a\nb\n", "f1"), ("c\r\nd", "f2"), ("", "f3"), ("x\n\ny\r\n", "f4")],
                                  "value string, file string")
    expected = spark.createDataFrame([("a", "f1", 1), ("b", "f1", 2), ("c", "f2", 1), ("d", "f2", 2),
                                      ("x", "f4", 1), ("", "f4", 2), ("y", "f4", 3)], LINES)
    assert_df_equality(lines_of(files), expected, ignore_row_order=True, ignore_nullable=True)
