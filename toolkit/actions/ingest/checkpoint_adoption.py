"""The first run of this release on a feed that an older release ingested with Spark Structured Streaming: its
checkpoint's file-source log (`checkpoint-<epoch>/sources/0/<batch>`, JSON lines of `path`, `timestamp` (ms)
and `batchId` after a version line) says which landing files each batch read. Those were left in the landing
folder; without this, the landing scan would read them all again.

A file whose batch was committed (its batch record says so), and that still has the modification time Spark
saw, moves to `_ingested/<yyyyMMdd>/` now; one changed since stays and is read whole (Spark never read its new
bytes). A batch left planned by a killed run is finished from its plan first. The stream keeps its epoch; the
next batch id follows the last one recorded, so no name is used twice. The old checkpoint is left in place: it
is no longer read, and can be deleted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timezone

from toolkit.actions.ingest.landing import INGESTED, ingested_name, move_out
from toolkit.core.ledger.ingest_book import COMMITTED, PLANNED, IngestBatch, IngestBook, LandingBook
from toolkit.core.storage.filesystem import FileSystem


def adopt_checkpoint(fs: FileSystem, book: IngestBook, landing: str, base: str, created: str, now: float,
                     finish: Callable[[IngestBatch], object]) -> LandingBook:
    """The landing book of a feed that has none: new, or taken over from an older release's checkpoint (written
    before it returns, so this runs once). `finish` commits a batch found planned."""
    stream = book.stream()
    checkpoint = None if stream is None else f"{base}/checkpoint-{stream.epoch}"
    if stream is None or checkpoint is None or not fs.exists(checkpoint):
        stream = book.new_stream(created)
        adopted = LandingBook(book.feed, book.cluster, stream.epoch)
        book.write_landing(adopted)
        return adopted
    seen = _files_read(fs, f"{checkpoint}/sources/0")
    day = datetime.fromtimestamp(now, timezone.utc).strftime("%Y%m%d")
    last = -1
    for batch_id in sorted({batch for batch, _ in seen.values()}):
        record = book.batch(stream.epoch, batch_id)
        if record is not None and record.state == PLANNED:
            finish(record)
            record = book.batch(stream.epoch, batch_id)
        if record is None or record.state != COMMITTED:
            continue
        last = max(last, batch_id)
        for path, (batch, modified) in seen.items():
            status = fs.status(path) if batch == batch_id else None
            if status is not None and not status.is_dir and status.modification_time == modified \
                    and path.rsplit("/", 1)[0].rstrip("/") == landing.rstrip("/"):
                folder = f"{landing}/{INGESTED}/{day}"
                fs.mkdirs(folder)
                taken = {entry.name for entry in fs.list(folder)}
                move_out(fs, path, f"{folder}/{ingested_name(status.name, taken, f'{stream.epoch}-{batch_id:010d}')}")
    adopted = LandingBook(book.feed, book.cluster, stream.epoch, next_batch=max(last, _last_recorded(
        fs, book, stream.epoch)) + 1)
    book.write_landing(adopted)
    return adopted


def _files_read(fs: FileSystem, folder: str) -> dict[str, tuple[int, int]]:
    """path -> (batch id, modification time in ms) of every landing file the file-source log names."""
    seen: dict[str, tuple[int, int]] = {}
    if not fs.exists(folder):
        return seen
    for entry in fs.list(folder):
        if entry.is_dir or entry.name.startswith("."):
            continue
        for line in fs.read(entry.path).decode("utf-8", "replace").splitlines()[1:]:
            try:
                item = json.loads(line)
                seen[_plain(str(item["path"]))] = (int(item["batchId"]), int(item["timestamp"]))
            except (ValueError, KeyError, TypeError):
                continue
    return seen


def _plain(path: str) -> str:
    """Spark's `file:/a%20b` or `file:///a%20b` as the toolkit spells it (`file:///a b`)."""
    from urllib.parse import unquote

    if path.startswith("file:") and not path.startswith("file:///"):
        path = "file:///" + path[len("file:"):].lstrip("/")
    return unquote(path)


def _last_recorded(fs: FileSystem, book: IngestBook, epoch: str) -> int:
    """The highest batch id of `epoch` with a record (-1 for none)."""
    folder = f"{book.folder}/batches"
    if not fs.exists(folder):
        return -1
    ids = [int(e.name[len(epoch) + 1:-len(".json")]) for e in fs.list(folder)
           if e.name.startswith(f"{epoch}-") and e.name.endswith(".json") and e.name[len(epoch) + 1:-5].isdigit()]
    return max(ids, default=-1)
