"""The landing folder, tracked by the toolkit itself (not by Spark's log of paths seen): what each batch reads
and what becomes of a landing file once its batch is committed.

A landing file is read when it is a file directly in the landing folder whose name starts with neither `.` nor
`_` (producers write `.name` and rename it in). Each batch takes the oldest files first (by modification time,
then name), at most `ingest.max-files-per-batch` files and `ingest.max-bytes-per-batch` bytes (at least one
file). After the batch is committed, each file it read is moved to `<landing>/_ingested/<yyyyMMdd>/` (its name,
or `<name>.<epoch>-<batch>` when a file of that name is there already) when it is as listed, so a name used again
is a new file and read whole. A file that changed while it was read stays, with a mark in the ledger (the offset
read to and a CRC32C of the bytes before it): bytes appended after the mark are read by the next batch; a file
that no longer ends there (replaced, truncated) is read whole again. A symbolic link is never followed, and a file
that cannot be read (permissions) never blocks the others: each is refused in the dead letters, with the reason,
and moved out like a file; a file gone since the listing is left out of the batch. Folders in the landing folder
are not read (stderr says so). `_ingested/<day>` folders older than `ingest.ingested-retention` are deleted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from toolkit.core.entities.ingest_settings import IngestSettings
from toolkit.core.ledger.ingest_book import IngestBatch, IngestBook, LandingBook, Mark, Source
from toolkit.core.storage.filesystem import FileStatus, FileSystem

INGESTED = "_ingested"
LINK = ("a symbolic link in the landing folder: the toolkit never follows links; drop the file itself (write it "
        "under a name starting with '.', then rename it in)")
UNREADABLE = "!"  # a fingerprint that starts so is why the file cannot be read

# (uri, offset) -> the CRC32C of up to the 64 KiB before each offset ("" when the file is gone or shorter, "!" and
# the reason when it cannot be read)
Fingerprints = Callable[[Sequence[tuple[str, int]]], list[str]]


@dataclass(frozen=True)
class Scan:
    """What the landing folder holds now: the sources to read (oldest first), the files present, the folders
    that are not read."""

    sources: tuple[Source, ...]
    present: frozenset[str]
    folders: tuple[str, ...]


def scan(fs: FileSystem, landing: str, book: LandingBook, fingerprints: Fingerprints) -> Scan:
    """Every landing file with the bytes still to read: from its mark when its tail is still the one read
    (bytes appended since), else from 0 (a new file, or a name used again)."""
    listed = [s for s in fs.list(landing) if not s.name.startswith((".", "_"))]
    files = [s for s in listed if not s.is_dir]
    marks = book.file_marks
    marked = [s for s in files if s.name in marks and not s.is_link and s.length >= marks[s.name].offset]
    tails = fingerprints([(s.path, marks[s.name].offset) for s in marked])
    kept = {s.name for s, tail in zip(marked, tails, strict=True) if tail == marks[s.name].tail}
    sources = [_source(s, marks[s.name].offset if s.name in kept else 0) for s in files]
    order = sorted(zip(files, sources, strict=True), key=lambda pair: (pair[0].modification_time, pair[0].name))
    return Scan(tuple(source for _, source in order), frozenset(s.name for s in files),
                tuple(sorted(s.name for s in listed if s.is_dir)))


def _source(status: FileStatus, start: int) -> Source:
    if status.is_link:
        return Source(status.name, 0, 0, status.modification_time, refused=LINK)
    return Source(status.name, start, status.length, status.modification_time)


def next_batch(sources: Sequence[Source], settings: IngestSettings) -> list[Source]:
    """The oldest sources within the batch's bounds (at least one)."""
    chosen: list[Source] = []
    size = 0
    for source in sources:
        if chosen and (len(chosen) >= settings.max_files or size + source.end - source.start > settings.max_bytes):
            break
        chosen.append(source)
        size += source.end - source.start
    return chosen


def with_tails(sources: Sequence[Source], landing: str, fingerprints: Fingerprints) -> list[Source]:
    """The sources with the tail of what each will read, taken before the read."""
    readable = [s for s in sources if not s.refused and s.end > 0]
    tails = dict(zip((s.name for s in readable), fingerprints([(f"{landing}/{s.name}", s.end) for s in readable]),
                     strict=True))
    found = []
    for s in sources:
        tail = tails.get(s.name, "")
        if s.name in tails and tail == "":
            continue  # gone or cut since the listing: the next scan sees what is there
        if tail.startswith(UNREADABLE):
            found.append(Source(s.name, s.start, s.end, s.modified, refused=f"the file cannot be read "
                                f"({tail[len(UNREADABLE):]}): give the toolkit's user read access, then drop it again"))
        else:
            found.append(Source(s.name, s.start, s.end, s.modified, tail, s.refused))
    return found


@dataclass(frozen=True)
class Settled:
    """A batch's landing files after its commit: moved to `_ingested`, or left in landing with a mark."""

    book: LandingBook
    moved: tuple[str, ...]
    left: tuple[str, ...]


def settle(fs: FileSystem, landing: str, batch: IngestBatch, books: IngestBook, book: LandingBook,
           present: frozenset[str], now: float) -> Settled:
    """Move the batch's landing files that are as listed to `_ingested/<yyyyMMdd>/`; mark the ones that changed
    while read; then write the landing book with the next batch id. Idempotent: a run killed anywhere in it does it
    again (a file moved already is gone from landing; its mark, if any, went with it)."""
    marks = {name: mark for name, mark in book.file_marks.items() if name in present}
    day = datetime.fromtimestamp(now, timezone.utc).strftime("%Y%m%d")
    folder = f"{landing}/{INGESTED}/{day}"
    listed = {status.name: status for status in fs.list(landing)}  # one listing, not a status per file
    moved: list[str] = []
    left: list[str] = []
    taken: set[str] | None = None
    for source in batch.sources:
        marks.pop(source.name, None)
        status = listed.get(source.name)
        if status is None:
            continue
        if source.refused or (status.length == source.end and status.modification_time == source.modified):
            if taken is None:
                fs.mkdirs(folder)
                taken = {entry.name for entry in fs.list(folder)}
            name = ingested_name(source.name, taken, f"{batch.epoch}-{batch.batch_id:010d}")
            move_out(fs, f"{landing}/{source.name}", f"{folder}/{name}")
            taken.add(name)
            moved.append(source.name)
        else:
            marks[source.name] = Mark(source.end, source.tail)
            left.append(source.name)
    done = book.settled(batch.batch_id, marks)
    books.write_landing(done)
    return Settled(done, tuple(moved), tuple(left))


NAME_MAX = 255  # bytes of one name on ext4, XFS and HDFS (dfs.namenode.fs-limits.max-component-length)


def ingested_name(name: str, taken: set[str], suffix: str) -> str:
    """`name` in a day's `_ingested` folder, or `<name>.<suffix>` when the day holds it already (a name used again),
    the name cut short (whole characters) so that it stays within NAME_MAX bytes: a name at the limit moves too."""
    if name not in taken:
        return name
    room = NAME_MAX - len(suffix.encode()) - 1
    return f"{name.encode()[:room].decode(errors='ignore')}.{suffix}"


def move_out(fs: FileSystem, source: str, target: str) -> None:
    """One landing file out of the landing folder (a rename that never replaces: a name taken is an error)."""
    fs.rename(source, target)


def expire_ingested(fs: FileSystem, landing: str, settings: IngestSettings, now: float) -> list[str]:
    """Delete the `_ingested/<yyyyMMdd>` folders whose day ended longer than the retention ago; the days deleted.
    A folder whose name is no day is left alone."""
    folder = f"{landing}/{INGESTED}"
    if fs.status(folder) is None:
        return []
    limit = datetime.fromtimestamp(now, timezone.utc) - _retention(settings)
    deleted = []
    for entry in fs.list(folder):
        try:
            day = datetime.strptime(entry.name, "%Y%m%d").replace(tzinfo=timezone.utc)
        except ValueError:
            continue
        if entry.is_dir and not entry.is_link and day + timedelta(days=1) <= limit:
            fs.delete(entry.path, recursive=True)
            deleted.append(entry.name)
    return deleted


def _retention(settings: IngestSettings) -> timedelta:
    return timedelta(minutes=settings.retention.approx_minutes())
