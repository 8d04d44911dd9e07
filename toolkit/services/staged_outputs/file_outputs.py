"""A feed instance's files written by a run (a process's workflow, a database import): where they are written (a
hidden staging folder beside the instance, on the same file system) and how the result is published: renamed
into place in one step, then the feed's availability flag written. A reader never sees a partial instance; a
failed attempt publishes nothing.

Staging folders are named `.<instance folder>.toolkit-<key>-<run id>-<attempt>`, where the key stands for the
writer's unit of work (a process instance, an import of a feed instance), whose lock the writer holds: before an
attempt the writer clears what killed attempts of the same unit left, and nothing of another's. An earlier version
being replaced is moved aside to `.<instance folder>.toolkit-<key>-replaced-...` for the moment of the swap; a run
killed in that moment leaves it there, and the next attempt applies the crash rule of core/storage/publish.py to it
before anything else (put back when the output is missing, else deleted).
"""
from __future__ import annotations

from contextlib import nullcontext

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.instances.output_targets import FileOutput
from toolkit.core.ledger.records import PublishedOutput
from toolkit.core.storage.filesystem import FileSystem
from toolkit.core.storage.publish import Publication, recover
from toolkit.core.storage.tree import data_files
from toolkit.errors import ToolkitError
from toolkit.uris import normalize_uri


class NothingWrittenError(ToolkitError):
    """The workflow succeeded but did not write an output (exit 1 after the retries)."""


def clear_leftovers(fs: FileSystem, output: FileOutput, keep: str | None = None) -> int:
    """Apply the crash rule of core/storage/publish.py to earlier versions killed attempts had moved aside (the last
    put back when the output is missing), then delete the staging folders killed attempts of this process
    instance left, but `keep` (the staging a killed attempt's job still writes, which the caller follows); the
    caller holds the instance's lock, so no live attempt owns them. Returns how many folders were deleted."""
    if not fs.exists(output.folder):
        return 0
    prefix = output.staging_prefix
    mine = sorted((s for s in fs.list(output.folder) if s.name.startswith(prefix)), key=lambda s: s.modification_time)
    replaced = [s.path for s in mine if s.name.startswith(prefix + "replaced-")]
    deleted = recover(fs, output.path, replaced)
    for status in mine:
        if status.path not in replaced and (keep is None or normalize_uri(status.path) != normalize_uri(keep)):
            fs.delete(status.path, recursive=True)
            deleted += 1
    return deleted


def missing_staging(fs: FileSystem, output: FileOutput, run_id: str, attempt: int) -> str | None:
    """Why the output cannot be published (one sentence), or None: checked for every output before any is."""
    staging = output.staging(run_id, attempt)
    if fs.status(staging) is not None:
        return None
    return (f"The workflow wrote nothing to output '{output.name}' (feed '{output.feed.name}', "
            f"{format_timestamp(output.time)}): it should write its result to ctx.outputs['{output.name}'], "
            f"{staging}.")


def publish(fs: FileSystem, output: FileOutput, run_id: str, attempt: int,
            publication: Publication | None = None) -> PublishedOutput:
    """Swap the attempt's staging folder into place (replacing an earlier version), then write the flag. Within
    `publication` (the attempt's, with its lease guard; undone with the other outputs when one fails), or on
    its own."""
    problem = missing_staging(fs, output, run_id, attempt)
    if problem:
        raise NothingWrittenError(problem)
    staging = output.staging(run_id, attempt)
    if output.flag:  # the flag comes last, from us (with the checksum side file Hadoop's local FS wrote)
        for name in (output.flag, f".{output.flag}.crc"):
            fs.delete(f"{staging}/{name}", recursive=False)
    with Publication(fs) if publication is None else nullcontext(publication) as steps:
        had_previous = steps.swap(staging, output.path, output.replaced(run_id, attempt))
        if output.flag:
            steps.write(f"{output.path}/{output.flag}", b"")
    files = data_files(fs, output.path)
    return PublishedOutput(output.name, output.feed.name, format_timestamp(output.time), output.path, len(files),
                           sum(item.status.length for item in files), replaced=had_previous)


def discard(fs: FileSystem, output: FileOutput, run_id: str, attempt: int) -> None:
    """A failed attempt leaves nothing behind."""
    fs.delete(output.staging(run_id, attempt), recursive=True)
