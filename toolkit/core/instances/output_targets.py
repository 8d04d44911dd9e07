"""Where a process instance's outputs go: a file output's instance path and the hidden staging names beside it,
a table output's partition and its staging table. Pure naming, resolved from the entities; writing, checking
and publishing them is `toolkit/services/staged_outputs/`'s (`file_outputs.py`, `table_outputs.py`).

Staging folders are named `.<instance folder>.toolkit-<key>-<run id>-<attempt>`, where the key stands for the
process instance (whose lock the runner holds), so that what killed attempts of the same process instance left
is found, and nothing of another process's.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from toolkit.core.el.timestamps import format_timestamp, instance_key
from toolkit.core.entities.model import Feed
from toolkit.core.instances.feed_locations import FeedLocations, require_safe_template, under_root
from toolkit.core.storage.filesystem import normalize_uri, parent_of
from toolkit.errors import ToolkitError

_MARK = ".toolkit-"


def staging_key(process: str, t: datetime) -> str:
    """A short name for one process instance in staging names (a table name must stay short)."""
    return hashlib.sha1(f"{process}|{instance_key(t)}".encode()).hexdigest()[:10]


@dataclass(frozen=True)
class FileOutput:
    name: str
    feed: Feed
    time: datetime
    path: str
    flag: str | None
    key: str  # staging_key of the process instance writing it

    @property
    def folder(self) -> str:
        return parent_of(self.path)

    @property
    def base(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def staging_prefix(self) -> str:
        """What every staging and replaced-version folder of this process instance's output starts with."""
        return f".{self.base}{_MARK}{self.key}-"

    def staging(self, run_id: str, attempt: int) -> str:
        return f"{self.folder}/{self.staging_prefix}{run_id}-{attempt}"

    def replaced(self, run_id: str, attempt: int) -> str:
        return f"{self.folder}/{self.staging_prefix}replaced-{run_id}-{attempt}"

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "feed": self.feed.name, "time": format_timestamp(self.time), "path": self.path}


def file_output(name: str, feed: Feed, where: FeedLocations, t: datetime, key: str) -> FileOutput:
    template = where.paths.get("data")
    if template is None:
        raise ToolkitError(f"The output '{name}' (feed '{feed.name}') has no data location on cluster "
                           f"'{where.cluster}': give the feed locations.data.")
    require_safe_template("data", feed.name, template, "the process runner")
    path = normalize_uri(under_root(where.root, template.format(t, where.zone)))
    return FileOutput(name, feed, t, path, feed.availability_flag, key)


@dataclass(frozen=True)
class TableOutputTarget:
    name: str
    feed: Feed
    time: datetime
    database: str
    table: str
    partition: dict[str, str]
    key: str  # staging_key of the process instance writing it

    @property
    def staging_table(self) -> str:
        """One per process instance: a killed attempt's is found and replaced by the next (which holds the
        instance's lock)."""
        return f"{self.table}__toolkit_{self.key}".lower()

    @property
    def qualified_table(self) -> str:
        return f"{self.database}.{self.table}"

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "feed": self.feed.name, "time": format_timestamp(self.time),
                "table": self.qualified_table, "partition": dict(self.partition)}


def table_output(name: str, feed: Feed, where: FeedLocations, t: datetime, key: str) -> TableOutputTarget:
    assert where.table is not None
    return TableOutputTarget(name, feed, t, where.table.database, where.table.table,
                             where.table.format(t, where.zone), key)

