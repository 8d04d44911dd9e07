"""A streamed feed's ingest settings, read from its `properties`: what each ingest call takes from the landing
folder and how long the files it ingested are kept, parsed in one place (the runner and the linter's FD035).

- `ingest.max-files-per-batch`: landing files per micro-batch, a whole number >= 1, default 1,000;
- `ingest.max-bytes-per-batch`: bytes of landing files per micro-batch, a size (`1GB`), default 1 GB; a file
  larger than that is a batch of its own (it is read in splits, never whole);
- `ingest.split-size`: the bytes one Spark task reads of a landing file, a size, default 128 MB (Spark's own
  `spark.sql.files.maxPartitionBytes`);
- `ingest.max-line-size`: the longest line kept, a size, default 16 MB: a longer line is rejected (dead
  letters, without its text) rather than held in memory;
- `ingest.ingested-retention`: how long a committed landing file is kept in `<landing>/_ingested/<yyyyMMdd>/`
  before ingest deletes it, a frequency (`days(7)`, the default).

Why these defaults: a batch is one commit, so a backlog of 10,000 files becomes ten bounded commits rather
than one that holds them all; 1 GB keeps a batch's staging within a minute on one machine. Seven days of
ingested files let an operator look at what was sent, then the landing folder stops growing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from toolkit.core.el.frequency import Frequency
from toolkit.core.entities.model import Feed
from toolkit.core.entities.replication_settings import positive_int, size
from toolkit.errors import UsageError

MAX_FILES = "ingest.max-files-per-batch"
MAX_BYTES = "ingest.max-bytes-per-batch"
SPLIT_SIZE = "ingest.split-size"
MAX_LINE = "ingest.max-line-size"
RETENTION = "ingest.ingested-retention"
PROPERTIES = (MAX_FILES, MAX_BYTES, SPLIT_SIZE, MAX_LINE, RETENTION)
DEFAULT_RETENTION = "days(7)"


@dataclass(frozen=True)
class IngestSettings:
    max_files: int = 1000
    max_bytes: int = 1024 ** 3
    split_bytes: int = 128 * 1024 ** 2
    max_line_bytes: int = 16 * 1024 ** 2
    retention: Frequency = Frequency.parse(DEFAULT_RETENTION)


def ingest_settings(feed: Feed) -> IngestSettings:
    """The settings; UsageError (one sentence naming the feed and the property) for a bad value."""
    default = IngestSettings()
    return IngestSettings(max_files=positive_int(feed, MAX_FILES, default.max_files),
                          max_bytes=_positive_size(feed, MAX_BYTES, default.max_bytes),
                          split_bytes=_positive_size(feed, SPLIT_SIZE, default.split_bytes),
                          max_line_bytes=_positive_size(feed, MAX_LINE, default.max_line_bytes),
                          retention=_retention(feed))


def _positive_size(feed: Feed, name: str, default: int) -> int:
    found = size(feed, name, default)
    if found < 1:
        raise UsageError(f"The property {name!r} of feed '{feed.name}' is {feed.properties.get(name)!r}: give a "
                         "size of at least 1 byte, such as 128MB.")
    return found


def _retention(feed: Feed) -> Frequency:
    text = feed.properties.get(RETENTION)
    if text is None:
        return Frequency.parse(DEFAULT_RETENTION)
    try:
        return Frequency.parse(text)
    except UsageError as err:
        raise UsageError(f"The property {RETENTION!r} of feed '{feed.name}': {str(err).rstrip('.')}, such as "
                         "days(7).") from None


# Each property's parser on its own, so that the linter (FD035) reports every bad value rather than the first.
PARSERS: Mapping[str, Callable[[Feed], object]] = MappingProxyType({
    MAX_FILES: lambda feed: positive_int(feed, MAX_FILES, IngestSettings.max_files),
    MAX_BYTES: lambda feed: _positive_size(feed, MAX_BYTES, IngestSettings.max_bytes),
    SPLIT_SIZE: lambda feed: _positive_size(feed, SPLIT_SIZE, IngestSettings.split_bytes),
    MAX_LINE: lambda feed: _positive_size(feed, MAX_LINE, IngestSettings.max_line_bytes),
    RETENTION: _retention,
})
