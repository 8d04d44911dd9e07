"""The fingerprint of a feed instance: what late-data checks compare.

The sorted list of (relative path, length, modification time) of its visible files, plus the partition's
create time for a table feed, reduced to a SHA-256 digest; with the file count and total bytes for people.
Falcon recorded only the total size, so a rewrite of the same size went unseen; a new modification time
shows here. The JVM makes the same digest where it lists a tree (core/storage/jvm/TreeLister.java, `visible`): a
change here is a change there (tests/integration/storage/test_instance_probe_hadoop.py compares them).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from toolkit.core.storage.filesystem import FileStatus, TreeDigest, normalize_uri


@dataclass(frozen=True)
class Fingerprint:
    """An instance's content as records keep it (dataset events, the inputs a run read, an ingest closing); every
    toolkit wrote all three fields, so a record whose fingerprint lacks one is damaged (CorruptRecordError)."""

    digest: str
    files: int
    bytes: int

    @classmethod
    def of(cls, tree: TreeDigest) -> Fingerprint:
        """The fingerprint of a tree digested where it was listed (the JVM's walk)."""
        return cls(tree.digest, tree.files, tree.bytes)

    def to_json(self) -> dict[str, object]:
        return {"digest": self.digest, "files": self.files, "bytes": self.bytes}


def fingerprint(root: str, files: Sequence[FileStatus], created: float | None = None) -> Fingerprint:
    prefix = normalize_uri(root).rstrip("/") + "/"
    entries = sorted((normalize_uri(f.path).removeprefix(prefix), f.length, f.modification_time) for f in files)
    digest = hashlib.sha256()
    if created is not None:
        digest.update(f"created\t{created:.3f}\n".encode())
    for relative, length, mtime in entries:
        digest.update(f"{relative}\t{length}\t{mtime}\n".encode())
    return Fingerprint(digest.hexdigest(), len(entries), sum(length for _, length, _ in entries))
