"""Byte ranges of files as lines with their byte offsets, read in Spark tasks by the toolkit's Java reader
(`jvm/LandingLines.java`): a file of any size in bounded memory, split over the tasks, any legal name, links never
followed, no `.crc` side files on `file://`. Spark's text source cannot serve here: it gives no line's offset
(only `wholetext`, a whole file in one row, does give its lines a place) and reads a file to its current end.

A range starts where a line starts (0, or just after a \\n) and ends at the length the file had when listed;
lines end with \\n (a \\r before it is cut), and the bytes after the last \\n are the last line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.java_errors import first_line

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

_SEPARATOR = "\u0000"


@dataclass(frozen=True)
class LineRange:
    """Bytes [start, end) of the file `uri`."""

    uri: str
    start: int
    end: int

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"a range of {self.uri} must have 0 <= start <= end, not {self.start}, {self.end}")


def read_lines(spark: SparkSession, ranges: Sequence[LineRange], *, split_bytes: int,
               max_line_bytes: int) -> DataFrame:
    """`value` (null for a line longer than `max_line_bytes`), `file` (the range's uri), `offset` (of the line's
    first byte) and `line` (its number from 1 where known without reading what comes before: in the first
    `split_bytes` of a file read from its start; else null). Lazy: the files are read by the jobs that use it."""
    from pyspark.sql import DataFrame

    wire = _SEPARATOR.join(f"{r.uri}{_SEPARATOR}{r.start}{_SEPARATOR}{r.end}" for r in ranges if r.end > r.start)
    reader = _reader(spark)
    return DataFrame(reader.read(spark._jsparkSession, wire, split_bytes, max_line_bytes), spark)


def tail_fingerprints(spark: SparkSession, files: Sequence[tuple[str, int]]) -> list[str]:
    """Per (uri, offset): the CRC32C (hex) of up to the 64 KiB before `offset`, "" when the file is gone or
    shorter, "!" and the reason when it cannot be read; what tells bytes appended to a file already read from a new
    file under the same name."""
    if not files:
        return []
    wire = _SEPARATOR.join(f"{uri}{_SEPARATOR}{offset}" for uri, offset in files)
    try:
        answer = str(_reader(spark).fingerprints(spark.sparkContext._jsc.hadoopConfiguration(), wire))
    except Exception as err:  # py4j's errors: one sentence, never a trace
        raise StorageError(f"Cannot read the ends of landing files already read ({files[0][0]} first): "
                           f"{first_line(err)}.") from None
    return answer.split(_SEPARATOR)


def _reader(spark: SparkSession) -> Any:
    from toolkit.core.storage.jvm_classes import java_class, new_instance

    gateway = spark.sparkContext._gateway
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    return new_instance(gateway, java_class(gateway, conf, "LandingLines"))
