"""Committing a micro-batch: its records become visible all at once or not at all, and never twice.

Within each feed instance a batch writes one file, staged under the working location and then renamed into
the instance's folder: one rename is what a reader sees, so the batch's records of that instance appear whole
(Spark, Hive and plain readers list the folder; none reads Spark's `_spark_metadata`). The order:

1. the plan (`IngestBatch`, planned: every staged file and its target) is written to the ledger;
2. each staged file is renamed to its target (one already in place was moved by a killed attempt);
3. the instance book takes the batch (open instances, watermark): idempotent, by batch;
4. the batch is recorded committed, and its staging folder removed.

A run killed anywhere is followed by Spark replaying the batch (same files, same id): committed, it is skipped;
planned, it is finished from the plan (never staged again, so never written twice); neither, it is staged anew.
"""

from __future__ import annotations

from collections.abc import Callable

from toolkit.core.ledger.ingest_book import COMMITTED, BatchFile, IngestBatch, IngestBook
from toolkit.core.storage.filesystem import FileSystem, StorageError, parent_of
from toolkit.uris import path_below


def commit_batch(fs: FileSystem, book: IngestBook, plan: IngestBatch, watermark: str | None,
                 published: Callable[[BatchFile], None] = lambda each: None, *, root: str) -> IngestBatch:
    """Steps 1 to 4 for a batch staged by this attempt (or 2 to 4 when `plan` was found planned). `published` is
    called after each file is in place (a table feed registers the partition then: targets.py). A target whose
    way from the cluster `root` goes through a symbolic link is refused first: nothing is planned or moved."""
    for each in plan.files:
        folder = parent_of(each.target)
        if path_below(root, folder) is not None:  # a table's partitions may lie elsewhere, where the metastore says
            fs.refuse_links_below(root, folder)
    if plan.state != COMMITTED:
        book.write_batch(plan)
    for each in plan.files:
        move_into_place(fs, each)
        published(each)
    book.write_instances(book.instances().with_batch(plan, watermark))
    done = plan.committed()
    book.write_batch(done)
    return done


def move_into_place(fs: FileSystem, each: BatchFile) -> None:
    """Rename the staged file to its target; nothing when the target is there and the staged file gone (an
    earlier attempt moved it). Both missing means the batch's data is lost: refused, naming both."""
    if fs.exists(each.target):
        return
    if not fs.exists(each.staged):
        raise StorageError(f"The batch file {each.staged} is gone and its target {each.target} was never written: "
                           "the batch's records of that instance are lost; restore the file or re-drop its "
                           "landing files.")
    fs.mkdirs(each.target.rsplit("/", 1)[0])
    fs.rename(each.staged, each.target)
