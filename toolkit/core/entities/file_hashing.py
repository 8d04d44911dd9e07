"""A file of the config repo hashed in reads of bounded size. What a definition names (a process's workflow file or
folder, its Spark application, a quality suite) is as big as a commit makes it, a 400 MB jar say, and its hash
needs one read at a time, never the whole file in memory. The hash is the one of the file's whole bytes: records
carry it (provenance.py), so a value may never change with how the file was read."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Protocol

READ = 1 << 20  # bytes of one read


class Digest(Protocol):
    """A hashlib hash: what is fed to it, a copy of it, and its value."""

    def update(self, data: bytes, /) -> None: ...

    def copy(self) -> Digest: ...

    def hexdigest(self) -> str: ...


def hash_into(digest: Digest, file: Path) -> None:
    """`digest` fed with the bytes of `file` (a regular file: the caller checks, a FIFO would block), one read of at
    most READ bytes at a time; OSError when it cannot be read."""
    with file.open("rb") as source:
        while chunk := source.read(READ):
            digest.update(chunk)


def file_sha256(file: Path) -> str:
    """The SHA-256 of `file`'s bytes, in hexadecimal, read as hash_into reads; OSError when it cannot be read."""
    digest = hashlib.sha256()
    hash_into(digest, file)
    return digest.hexdigest()
