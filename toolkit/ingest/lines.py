"""Landing files as lines: the runner reads each file whole (the text source's `wholetext`) so that every line
keeps its file and its 1-based number, which a rejected record must name in the dead letters."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def lines_of(files: DataFrame) -> DataFrame:
    """`value` (a whole file's text) and `file` -> one row per line: `value`, `file`, `line` (long, from 1).

    Lines end with \\n or \\r\\n; only the empty string after a final line end is no line (so an empty file has
    none, and a blank line inside a file is one, to be rejected rather than lost).
    """
    from pyspark.sql import functions as F

    # one character splits without a regular expression (Java's fast path); a \r before it is cut after
    parts = files.select(F.col("file"), F.split(F.col("value"), "\n", -1).alias("parts"))
    exploded = parts.select("file", F.size("parts").alias("count"), F.posexplode("parts").alias("pos", "value"))
    kept = exploded.filter((F.col("pos") < F.col("count") - 1) | (F.col("value") != ""))
    value = F.col("value")
    line = F.when(value.endswith("\r"), value.substr(F.lit(1), F.length(value) - 1)).otherwise(value)
    return kept.select(line.alias("value"), "file", (F.col("pos") + 1).cast("long").alias("line"))
