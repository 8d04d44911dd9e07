"""A process instance's file outputs: where the workflow writes (a hidden staging folder beside the output
instance, on the same file system) and how the result is published: renamed into place in one step, then the
feed's availability flag written. A reader never sees a partial instance; a failed attempt publishes nothing.

Staging folders are named `.<instance folder>.toolkit-<run id>-<attempt>`, so the instance's lock holder can
clear the leftovers of killed attempts before it starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from toolkit.el.timestamps import format_timestamp
from toolkit.entities.model import Feed
from toolkit.errors import ToolkitError
from toolkit.instances.feed_locations import FeedLocations, require_safe_template, under_root
from toolkit.storage.filesystem import FileSystem, StorageError, normalize_uri, parent_of
from toolkit.storage.tree import data_files

_MARK = ".toolkit-"


class NothingWrittenError(ToolkitError):
    """The workflow succeeded but did not write an output (exit 1 after the retries)."""


@dataclass(frozen=True)
class FileOutput:
    name: str
    feed: Feed
    time: datetime
    path: str
    flag: str | None

    @property
    def folder(self) -> str:
        return parent_of(self.path)

    @property
    def base(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    def staging(self, run_id: str, attempt: int) -> str:
        return f"{self.folder}/.{self.base}{_MARK}{run_id}-{attempt}"

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "feed": self.feed.name, "time": format_timestamp(self.time), "path": self.path}


def file_output(name: str, feed: Feed, where: FeedLocations, t: datetime) -> FileOutput:
    template = where.paths.get("data")
    if template is None:
        raise ToolkitError(f"The output '{name}' (feed '{feed.name}') has no data location on cluster "
                           f"'{where.cluster}': give the feed locations.data.")
    require_safe_template("data", feed.name, template, "the process runner")
    path = normalize_uri(under_root(where.root, template.format(t, where.zone)))
    return FileOutput(name, feed, t, path, feed.availability_flag)


def clear_leftovers(fs: FileSystem, output: FileOutput) -> int:
    """Delete the staging and replaced folders killed attempts left beside the output; the caller holds the
    instance's lock, so no live attempt owns them."""
    if not fs.exists(output.folder):
        return 0
    prefix = f".{output.base}{_MARK}"
    stale = [status.path for status in fs.list(output.folder) if status.name.startswith(prefix)]
    for path in stale:
        fs.delete(path, recursive=True)
    return len(stale)


def publish(fs: FileSystem, output: FileOutput, run_id: str, attempt: int) -> dict[str, object]:
    """Move the attempt's staging folder into place (replacing an earlier version), then write the flag."""
    staging = output.staging(run_id, attempt)
    if fs.status(staging) is None:
        raise NothingWrittenError(
            f"The workflow wrote nothing to output '{output.name}' (feed '{output.feed.name}', "
            f"{format_timestamp(output.time)}): it should write its result to ctx.outputs['{output.name}'], "
            f"{staging}.")
    if output.flag:  # the flag comes last, from us (with the checksum side file Hadoop's local FS wrote)
        for name in (output.flag, f".{output.flag}.crc"):
            fs.delete(f"{staging}/{name}", recursive=False)
    replaced = f"{output.folder}/.{output.base}{_MARK}replaced-{run_id}-{attempt}"
    had_previous = fs.exists(output.path)
    if had_previous:
        fs.rename(output.path, replaced)
    try:
        fs.rename(staging, output.path)
    except StorageError:
        if had_previous and not fs.exists(output.path):
            fs.rename(replaced, output.path)  # the earlier version stays published
        raise
    if output.flag:
        fs.write_atomically(f"{output.path}/{output.flag}", b"")
    if had_previous:
        fs.delete(replaced, recursive=True)
    files = data_files(fs, output.path)
    return {**output.to_json(), "files": len(files), "bytes": sum(item.status.length for item in files),
            "replaced": had_previous}


def discard(fs: FileSystem, output: FileOutput, run_id: str, attempt: int) -> None:
    """A failed attempt leaves nothing behind."""
    fs.delete(output.staging(run_id, attempt), recursive=True)
