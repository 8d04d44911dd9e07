"""A cache of a config repo's checked entity documents, so that a command run every minute on a repo of
thousands of entities (`toolkit trigger`) does not parse and schema-check every unchanged file again.

What it keeps: for each entity file that loaded without a problem, the plain document (data, positions of values
and keys) that the YAML walk produced and the schema accepted, as JSON; the typed entity is still built from it on
each load (build.py), as from a freshly parsed file. A file is served from the cache only when the SHA-256 of its
bytes, read now, equals the one recorded, and the record was written by the same toolkit: its version and a digest
of the code and schemas that read and check documents (`_toolkit_key`). Files with problems are never cached, so
their problems are found and reported every time, exactly as without the cache; nor is a datasource with a
`password-text` credential, so that no copy of its password is written outside its file.

Where: one file per repo (by its absolute path) in `$FEED_TOOLKIT_CACHE_DIR`, else
`$XDG_CACHE_HOME/feed-toolkit`, else `~/.cache/feed-toolkit`, never inside the repo. The file is a header line
(format version, toolkit key, SHA-256 of the body) and a body line; it is replaced atomically (a temporary file
renamed over it), so concurrent commands read an old or a new record, never a torn one. Anything unreadable,
foreign, truncated or altered is ignored (and rewritten); a cache that cannot be written is skipped: the cache
only ever saves time, it never fails a command.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import toolkit
from toolkit.core.entities.build import build_entity
from toolkit.core.entities.document import Document, FieldPath
from toolkit.core.entities.entity_file import FileTooLarge, read_entity_file
from toolkit.core.entities.loading import load_entity, parse_entity
from toolkit.core.entities.model import Datasource, Entity
from toolkit.core.entities.problems import Problem

FORMAT_VERSION = 1
CACHE_DIR_VARIABLE = "FEED_TOOLKIT_CACHE_DIR"
NO_CACHE_VARIABLE = "FEED_TOOLKIT_NO_CACHE"  # set (1, true, yes, on): every file parsed and checked, no cache
# The code that decides what a file's document is and whether it is valid; a change to any of it (a new release,
# or an edited checkout) makes every record foreign.
_KEYED_SOURCES = (("core/entities", "*.py"), ("core/entities/schemas", "*.json"), ("core/el", "*.py"))


def cache_directory() -> Path | None:
    """Where the records are kept: $FEED_TOOLKIT_CACHE_DIR, else $XDG_CACHE_HOME/feed-toolkit, else
    ~/.cache/feed-toolkit; None (no cache kept) when that is not an absolute path, as when a scheduler's line or a
    container's user has no home folder: a relative one would be written into whatever the working folder is."""
    if explicit := os.environ.get(CACHE_DIR_VARIABLE):
        chosen = Path(explicit)
    elif (xdg := os.environ.get("XDG_CACHE_HOME", "")) and os.path.isabs(xdg):  # the XDG spec ignores a relative one
        chosen = Path(xdg) / "feed-toolkit"
    else:
        home = os.environ["HOME"] if "HOME" in os.environ else os.path.expanduser("~")  # the passwd entry's
        chosen = Path(home) / ".cache" / "feed-toolkit"
    return chosen if chosen.is_absolute() else None


def turned_off() -> bool:
    """True when $FEED_TOOLKIT_NO_CACHE asks for no cache (as `toolkit trigger --no-cache` does)."""
    return os.environ.get(NO_CACHE_VARIABLE, "").strip().lower() in ("1", "true", "yes", "on")


class ParseCache:
    """The checked documents of one repo: `load` is `load_entity` served from the record when it may be;
    `save` writes the record back when anything changed."""

    def __init__(self, root: Path, directory: Path | None = None, record_of: Path | None = None) -> None:
        """The cache of the repo at `root`; with `record_of`, the record of the repo there serves `root`'s files
        (by their path in the repo and their content), and nothing is written (another revision of that repo)."""
        self.root = root
        self._under = os.path.join(str(root), "")  # the root and a separator
        self._read_only = record_of is not None
        absolute = os.path.abspath(record_of if record_of is not None else root)
        name = hashlib.sha256(absolute.encode("utf-8", "surrogateescape")).hexdigest()[:32]
        folder = directory or cache_directory()
        self.path = folder / "config-repos" / f"{name}.json" if folder is not None else None
        self._key = {"format_version": FORMAT_VERSION, "toolkit": _toolkit_key(), "repo": absolute}
        self._recorded = _read_record(self.path, self._key) if self.path is not None else {}
        self._kept: dict[str, Any] = {}
        self._changed = False

    def load(self, file: Path) -> tuple[Entity | None, list[Problem]]:
        """The entity of `file` and its problems, identical to `load_entity(file)`."""
        try:
            content = read_entity_file(file)
        except (OSError, FileTooLarge):
            return load_entity(file)  # it reports the unreadable or too big file
        digest = hashlib.sha256(content).hexdigest()
        text = str(file)  # a file of the repo's folders: its name in the record is the rest of its path
        name = text[len(self._under):] if text.startswith(self._under) else file.relative_to(self.root).as_posix()
        entry = self._recorded.get(name)
        document = _document(file, entry) if isinstance(entry, dict) and entry.get("sha256") == digest else None
        if document is not None:
            self._kept[name] = entry
            return build_entity(document), []
        entity, problems = parse_entity(content, file)
        if entity is not None and not (isinstance(entity, Datasource) and entity.holds_password_text):
            # a new or edited valid file (one with problems, or holding a password, is never kept: see the module doc)
            self._kept[name] = _entry(digest, entity.document)
            self._changed = True
        return entity, problems

    def save(self) -> None:
        """Replace the record with what this load read, when that differs; never raises."""
        if self.path is None or self._read_only or (not self._changed and self._kept.keys() == self._recorded.keys()):
            return
        body = json.dumps(self._kept, separators=(",", ":")).encode("utf-8")
        header = json.dumps({**self._key, "sha256": hashlib.sha256(body).hexdigest()}).encode("utf-8")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp")
        except OSError:
            return  # not writable: the next load parses again
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(header + b"\n" + body)
            os.replace(temporary, self.path)
        except OSError:
            Path(temporary).unlink(missing_ok=True)


def _toolkit_key() -> str:
    """The toolkit's version and a digest of the sources and schemas that read and check documents."""
    package = Path(toolkit.__file__).parent
    digest = hashlib.sha256(toolkit.__version__.encode())
    for folder, pattern in _KEYED_SOURCES:
        for source in sorted((package / folder).glob(pattern)):
            digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return f"{toolkit.__version__}+{digest.hexdigest()}"


def _read_record(path: Path, key: dict[str, Any]) -> dict[str, Any]:
    """The entries of the record at `path` when it is whole and written for `key`; else none."""
    try:
        with path.open("rb") as record:
            header, body = record.readline(), record.read()
        if json.loads(header) != {**key, "sha256": hashlib.sha256(body).hexdigest()}:
            return {}
        entries = json.loads(body)
    except (OSError, ValueError, RecursionError):
        return {}
    return entries if isinstance(entries, dict) else {}


def _entry(digest: str, document: Document) -> dict[str, Any]:
    """A valid file's record: positions as JSON text, decoded only when a message asks for one (`_Positions`)."""
    return {
        "sha256": digest,
        "data": document.data,
        "values": _positions_text(document.value_positions),
        "keys": _positions_text(document.key_positions),
    }


def _document(file: Path, entry: dict[str, Any]) -> Document | None:
    """The document an entry recorded, or None for an entry not of this format (then the file is parsed)."""
    data, values, keys = entry.get("data"), entry.get("values"), entry.get("keys")
    if not (isinstance(data, dict) and isinstance(values, str) and isinstance(keys, str)):
        return None
    return Document(file, data, _Positions(values), _Positions(keys))


def _positions_text(positions: Mapping[FieldPath, tuple[int, int]]) -> str:
    return json.dumps([[*position, *path] for path, position in positions.items()], separators=(",", ":"))


class _Positions(Mapping[FieldPath, tuple[int, int]]):
    """The positions of a cached document, decoded on first use: most loads never cite a position, and decoding
    them all was most of a cached load's time."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._decoded: dict[FieldPath, tuple[int, int]] | None = None

    def _positions(self) -> dict[FieldPath, tuple[int, int]]:
        if self._decoded is None:
            self._decoded = {tuple(path): (line, column) for line, column, *path in json.loads(self._text)}
        return self._decoded

    def __getitem__(self, path: FieldPath) -> tuple[int, int]:
        return self._positions()[path]

    def __iter__(self) -> Iterator[FieldPath]:
        return iter(self._positions())

    def __len__(self) -> int:
        return len(self._positions())
