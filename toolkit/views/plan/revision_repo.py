"""The config repo at a git revision, loaded from the files of it that `toolkit plan` and `status --changed-since`
read, and only those: first its entity files (the YAML files of the kind folders, as the loader finds them), then the
files its definitions name that the plan reads (a process's workflow path, a file or a folder, and its Spark
application; a feed's quality suite). The revision's other files (a vendored jar, data samples, a 400 MB blob listed
three times) are never written, so what a revision costs the scratch folder is what the plan reads of it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath

from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed, Process
from toolkit.core.entities.repo import ENTITY_SUFFIXES, ConfigRepo
from toolkit.views.plan.revisions import RevisionFiles, write

_KIND_FOLDERS = frozenset(kind.folder for kind in Kind)


def revision_repo(revision: RevisionFiles, into: Path, load: Callable[[Path], ConfigRepo]) -> ConfigRepo:
    """The config repo `load` makes of `revision`'s entity files, written into the new folder `into`, once the files
    its definitions name that the plan reads are written there too."""
    write(revision, into, _entity_file)
    for folder in sorted({entry.path.partition("/")[0] for entry in revision.files} & _KIND_FOLDERS):
        (into / folder).mkdir(exist_ok=True)  # a kind folder without an entity file still makes a config repo
    config = load(into)
    named = {name for text in _named(config) if (name := _in_repo(text)) is not None}
    write(revision, into, lambda path: not _entity_file(path) and _within(path, named))
    return config


def _entity_file(path: str) -> bool:
    """Whether the loader reads `path` (repo.py's entity_files): a YAML file, not hidden, right in a kind folder."""
    folder, _, name = path.partition("/")
    return (folder in _KIND_FOLDERS and "/" not in name and name.endswith(ENTITY_SUFFIXES)
            and not name.startswith("."))


def _named(config: ConfigRepo) -> Iterator[str]:
    """The paths the definitions name that the plan reads: each process's workflow content (provenance.py: its
    Spark application, else its workflow path) and each feed's quality suite (gate_changes.py). A module of the plan
    that reads another file a definition names adds it here, or reads nothing."""
    for entity in config.entities:
        if isinstance(entity, Process):
            yield entity.workflow.path
            if entity.spark_attributes is not None and entity.spark_attributes.jar is not None:
                yield entity.spark_attributes.jar
        elif isinstance(entity, Feed) and entity.quality is not None:
            yield entity.quality.suite


def _in_repo(text: str) -> str | None:
    """The path of the repo that `text` names as the readers take it (`` for the repo's top), or None for one they
    never read from the repo: absolute, a URL, or with a `..`."""
    path = PurePosixPath(text)
    if path.is_absolute() or ".." in path.parts or "://" in text:
        return None
    return "/".join(path.parts)


def _within(path: str, named: set[str]) -> bool:
    """Whether `path` is one of `named`, or in one of them (a folder)."""
    return "" in named or path in named or any(path[:end] in named for end, character in enumerate(path)
                                               if character == "/")
