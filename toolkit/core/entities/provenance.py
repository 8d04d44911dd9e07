"""Which definition a run ran: the config repo's git commit (and whether its working tree differed from it) and a
content hash of the entity's definition, recorded by every attempt, dataset event, eviction batch and lineage run
(issue 39). The hash is of the YAML after loading (so comments and layout do not count) plus, for a process, its
workflow file's bytes: two runs of the same definition have the same hash whatever commit they ran from."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from toolkit.core.entities.file_hashing import Digest, hash_into
from toolkit.core.entities.model import Entity, Process

HASH_VERSION = "v1"  # the hash's recipe: changed when what it covers changes, so that old and new never compare equal


@dataclass(frozen=True)
class RepoRevision:
    """The git commit the config repo's folder was at, and `dirty` when its files differed from it."""

    commit: str
    dirty: bool

    def __post_init__(self) -> None:
        if len(self.commit) not in (40, 64) or any(c not in "0123456789abcdef" for c in self.commit):
            raise ValueError(f"RepoRevision.commit must be a full hexadecimal git object name, got {self.commit!r}")


@dataclass(frozen=True)
class Provenance:
    """What a record says of the definition it was written under. `commit` None: the repo was not in git (or git
    was not found); `definition`: `v1:<sha256>` of the entity (definition_hash)."""

    KEEPS_NULLS: ClassVar[bool] = True  # a record's `definition`: `commit` was always written, null or not
    UNKNOWN_WHEN_DAMAGED: ClassVar[bool] = True  # a damaged one reads as none: the record it is in stays readable

    definition: str
    commit: str | None = None
    dirty: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "dirty": self.dirty, "definition": self.definition}

    @classmethod
    def read(cls, value: object) -> Provenance | None:
        """A record's `definition` field as written by to_json; None (unknown) for a record written before it was
        recorded, or for anything else."""
        if not isinstance(value, Mapping):
            return None
        definition, commit, dirty = value.get("definition"), value.get("commit"), value.get("dirty", False)
        if not isinstance(definition, str) or not (commit is None or isinstance(commit, str)) or not isinstance(
                dirty, bool):
            return None
        return cls(definition, commit, dirty)

    @property
    def label(self) -> str:
        """The commit as people read it: its first 12 digits, `+dirty` when the tree differed, `no git` without."""
        if self.commit is None:
            return "no git"
        return self.commit[:12] + ("+dirty" if self.dirty else "")


def definition_hash(entity: Entity, root: Path) -> str:
    """`v1:<sha256>` of the entity's YAML as loaded (keys sorted) and, for a process, its workflow file's bytes
    (when it is a file of the repo), read in bounded reads (file_hashing.py)."""
    digest: Digest = hashlib.sha256(json.dumps(entity.document.data, sort_keys=True, default=str,
                                               separators=(",", ":")).encode())
    if isinstance(entity, Process):
        digest.update(b"\0workflow\0")
        digest = _with_workflow(digest, entity, root) or digest
    return f"{HASH_VERSION}:{digest.hexdigest()}"


def provenance(entity: Entity, root: Path, revision: RepoRevision | None) -> Provenance:
    """The provenance of a run of `entity` from the repo at `root`, at `revision` (None: not in git)."""
    return Provenance(definition_hash(entity, root), revision.commit if revision else None,
                      revision.dirty if revision else False)


def workflow_digest(process: Process, root: Path) -> str | None:
    """The SHA-256 of what the process runs from the repo (_with_workflow); None when it is not in the repo. Two
    definitions run the same when these are equal: a workflow file is compared by its hash, never held whole."""
    fed = _with_workflow(hashlib.sha256(), process, root)
    return fed.hexdigest() if fed is not None else None


def _with_workflow(digest: Digest, process: Process, root: Path) -> Digest | None:
    """A copy of `digest` fed with what the process runs from the repo: its Spark application
    (`spark-attributes.jar`) when it names a file of the repo (its workflow path is then only the application's
    folder), else its workflow path's content: a file's bytes, or a folder's regular files, names and bytes, in name
    order. None when it is not in the repo. Links are read as what they lead to; FIFOs and devices are never
    opened."""
    if process.spark_attributes is not None and process.spark_attributes.jar is not None:
        application = _with_content(digest, root, process.spark_attributes.jar)
        if application is not None:
            return application
    return _with_content(digest, root, process.workflow.path)


def _with_content(digest: Digest, root: Path, text: str) -> Digest | None:
    """A copy of `digest` fed with the content at `text` (`digest` itself untouched: a file that cannot be read
    counts as none, as when it was read whole)."""
    path = Path(text)
    if path.is_absolute() or ".." in path.parts or "://" in text:
        return None
    where, fed = root / path, digest.copy()
    try:
        if where.is_dir():
            for file in sorted(file for file in where.rglob("*") if file.is_file()):
                fed.update(file.relative_to(where).as_posix().encode() + b"\0")
                hash_into(fed, file)
            return fed
        if not where.is_file():  # a regular file (a FIFO would block)
            return None
        hash_into(fed, where)
        return fed
    except OSError:
        return None
