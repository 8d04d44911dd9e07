"""A feed's replication settings, read from its `properties` (Falcon's names): what the replication action
runs with and what the linter checks (FD023), parsed in one place.

- `timeout`: how long after an instance's time a missing source instance is waited for; a frequency,
  default 6 x the feed's frequency and at least 30 minutes;
- `parallel`: instances in flight in a catch-up window, a whole number >= 1, default 1;
- `maxMaps`: files copied at once, a whole number >= 1, default 4;
- `preservePermission`: `true` (default) or `false`;
- `replication.distributed-above-bytes`, `replication.distributed-above-files`: a folder whose files to copy
  weigh more than that many bytes (default 1 GB) or number more than that many files (default 1,000) is copied
  as a Spark job over the executors (core/storage/jvm/DistributedCopy.java) instead of by the driver's threads; a
  size as `compaction.target-size` takes it (`512MB`), a file count a whole number (0: always distributed).

Why those defaults: the driver's copier moves about 1 GB in well under a minute on one machine, while a Spark
job costs a few seconds of scheduling and ships the file list to the executors; past 1 GB or 1,000 files the
executors' disks and network interfaces in parallel pay for that (DistCp's own rule of thumb: one map per
about 256 MB to 1 GB). The toolkit's own names (dotted, kebab-case) say these are not Falcon's properties.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.core.el.frequency import Frequency
from toolkit.core.entities.model import Feed
from toolkit.core.entities.sizes import SIZE_HELP, parse_size
from toolkit.core.entities.timeouts import default_timeout
from toolkit.errors import UsageError

DISTRIBUTED_BYTES = "replication.distributed-above-bytes"
DISTRIBUTED_FILES = "replication.distributed-above-files"
DEFAULT_DISTRIBUTED_BYTES = 1024 ** 3
DEFAULT_DISTRIBUTED_FILES = 1000
PROPERTIES = ("timeout", "parallel", "maxMaps", "preservePermission", DISTRIBUTED_BYTES, DISTRIBUTED_FILES)


@dataclass(frozen=True)
class ReplicationSettings:
    timeout: Frequency
    parallel: int
    copy_threads: int
    preserve_permission: bool
    distributed_above_bytes: int = DEFAULT_DISTRIBUTED_BYTES
    distributed_above_files: int = DEFAULT_DISTRIBUTED_FILES

    def distributed(self, files: int, size: int) -> bool:
        """Whether a copy of `files` files of `size` bytes runs over the executors."""
        return files > 0 and (files > self.distributed_above_files or size > self.distributed_above_bytes)


def replication_settings(feed: Feed) -> ReplicationSettings:
    """The settings; UsageError (one sentence naming the feed and the property) for a bad value."""
    return ReplicationSettings(timeout=timeout(feed), parallel=positive_int(feed, "parallel", 1),
                               copy_threads=positive_int(feed, "maxMaps", 4),
                               preserve_permission=flag(feed, "preservePermission", True),
                               distributed_above_bytes=size(feed, DISTRIBUTED_BYTES, DEFAULT_DISTRIBUTED_BYTES),
                               distributed_above_files=count(feed, DISTRIBUTED_FILES, DEFAULT_DISTRIBUTED_FILES))


def timeout(feed: Feed) -> Frequency:
    text = feed.properties.get("timeout")
    if text is None:
        return default_timeout(feed.frequency)
    try:
        return Frequency.parse(text)
    except UsageError as err:
        raise UsageError(f"The property 'timeout' of feed '{feed.name}': {err}") from None


def positive_int(feed: Feed, name: str, default: int) -> int:
    text = feed.properties.get(name)
    if text is None:
        return default
    if not text.strip().isdigit() or int(text) < 1:
        raise UsageError(f"The property {name!r} of feed '{feed.name}' is {text!r}: give a whole number of at "
                         "least 1.")
    return int(text)


def flag(feed: Feed, name: str, default: bool) -> bool:
    text = feed.properties.get(name)
    if text is None:
        return default
    if text.strip().lower() not in ("true", "false"):
        raise UsageError(f"The property {name!r} of feed '{feed.name}' is {text!r}: give true or false.")
    return text.strip().lower() == "true"


def size(feed: Feed, name: str, default: int) -> int:
    text = feed.properties.get(name)
    if text is None:
        return default
    found = parse_size(text)
    if found is None:
        raise UsageError(f"The property {name!r} of feed '{feed.name}' is {text!r}: give {SIZE_HELP}.")
    return found


def count(feed: Feed, name: str, default: int) -> int:
    text = feed.properties.get(name)
    if text is None:
        return default
    if not (text.strip().isascii() and text.strip().isdigit()):
        raise UsageError(f"The property {name!r} of feed '{feed.name}' is {text!r}: give a whole number, 0 or more.")
    return int(text)
