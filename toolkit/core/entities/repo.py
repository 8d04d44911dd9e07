"""The config repo: every entity of `clusters/`, `feeds/`, `processes/` and `datasources/`, looked up by name, and the
dependency graph between them (what an entity uses, what uses it).

`ConfigRepo.load` is for actions, which must not run on an invalid repo (exit 2). `ConfigRepo.scan` is
for the linter: it keeps going past bad files and returns their problems. `ConfigRepo.load_only` is for commands
about one entity (`toolkit status`): it parses only that entity and what it references, found where the naming
convention puts them (else by a plain-text pre-scan, prescan.py). Entities are read from the kind folders
(not recursively); an entity is filed under its `kind`, whatever folder it is in, and keeps its folder and file
stem so the linter can check them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple, TypeVar

from toolkit.core.entities.document import Document
from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.core.entities.loading import load_entity, unloaded_document
from toolkit.core.entities.model import Cluster, Datasource, Entity, Feed, Mirror, Process
from toolkit.core.entities.parse_cache import ParseCache
from toolkit.core.entities.prescan import declared
from toolkit.core.entities.problems import Problem
from toolkit.core.entities.provenance import RepoRevision
from toolkit.core.entities.yaml_loader import collector_paused
from toolkit.errors import UsageError

ENTITY_SUFFIXES = (".yaml", ".yml")

E = TypeVar("E", bound=Entity)


def is_config_repo(path: Path) -> bool:
    """A directory with at least one of the folders `clusters/`, `feeds/`, `processes/`, `datasources/`."""
    return path.is_dir() and any((path / kind.folder).is_dir() for kind in Kind)


def find_repo_root(path: Path) -> Path | None:
    """The config repo that `path` (a repo, a kind folder or an entity file) belongs to, if any."""
    start = path if path.is_dir() else path.parent
    absolute = start.absolute()
    for candidate in (start, *start.parents, absolute, *absolute.parents):
        if is_config_repo(candidate):
            return candidate
    return None


def entity_files(root: Path) -> list[Path]:
    """The YAML files of the kind folders, in a stable order (kind, then file name); hidden files skipped."""
    files: list[Path] = []
    for kind in Kind:
        folder = root / kind.folder
        if folder.is_dir():
            with os.scandir(folder) as entries:  # a file's kind from the listing: no status call for each of 3,000
                names = sorted(entry.name for entry in entries
                               if entry.name.endswith(ENTITY_SUFFIXES) and not entry.name.startswith(".")
                               and entry.is_file())
            files.extend(folder / name for name in names)
    return files


class _Graph(NamedTuple):
    dependencies: Mapping[EntityRef, tuple[EntityRef, ...]]  # what each entity refers to
    dependents: Mapping[EntityRef, tuple[EntityRef, ...]]  # what refers to each


class ConfigRepo:
    """All entities of one config repo; the first file (in `entity_files` order) wins a duplicate name."""

    def __init__(self, root: Path, entities: Iterable[Entity], files: Iterable[Path] = (),
                 unloaded: Iterable[EntityRef] = (),
                 unloaded_documents: Iterable[tuple[EntityRef, Document]] = ()) -> None:
        self.root = root
        self.entities: tuple[Entity, ...] = tuple(entities)
        self.files: tuple[Path, ...] = tuple(files)  # every entity file read, valid or not
        # What the files that failed to load stand for: their own problems are reported, not references to them.
        self.unloaded: frozenset[EntityRef] = frozenset(unloaded)
        # The YAML of those whose schema failed, for the references the linter can still read there.
        self.unloaded_documents: tuple[tuple[EntityRef, Document], ...] = tuple(unloaded_documents)
        # The git commit the repo was loaded at, when an entrypoint read it (toolkit/services/runtime/repo_revision.py):
        # what its records say they ran (provenance.py). None: not read, or not in git.
        self.revision: RepoRevision | None = None
        self.clusters: Mapping[str, Cluster] = _first_by_name(self.entities, Cluster)
        self.feeds: Mapping[str, Feed] = _first_by_name(self.entities, Feed)
        self.processes: Mapping[str, Process] = _first_by_name(self.entities, Process)
        self.datasources: Mapping[str, Datasource] = _first_by_name(self.entities, Datasource)
        self.mirrors: Mapping[str, Mirror] = _first_by_name(self.entities, Mirror)
        self._by_kind: dict[Kind, Mapping[str, Entity]] = {
            Kind.CLUSTER: self.clusters,
            Kind.FEED: self.feeds,
            Kind.PROCESS: self.processes,
            Kind.DATASOURCE: self.datasources,
            Kind.MIRROR: self.mirrors,
        }

    # ------------------------------------------------------------------------------------- loading

    @classmethod
    def scan(cls, path: Path | str, *, cached: bool = False,
             cached_as: Path | None = None) -> tuple[ConfigRepo, list[Problem]]:
        """Every valid entity, and the problems of the files that are not; raises only for a non-repo path.

        With `cached`, unchanged valid files are served from the parse cache (parse_cache.py): same result. With
        `cached_as`, from the cache kept for the repo at that path, read only (another revision of it, extracted
        into a scratch folder, whose files are mostly the same)."""
        root = _require_repo(Path(path))
        entities: list[Entity] = []
        problems: list[Problem] = []
        unloaded: list[EntityRef] = []
        documents: list[tuple[EntityRef, Document]] = []
        files = entity_files(root)
        with collector_paused():  # no cyclic-GC passes over the many objects of thousands of entities
            cache = ParseCache(root, record_of=cached_as) if cached or cached_as is not None else None
            load = cache.load if cache is not None else load_entity
            for file in files:
                entity, file_problems = load(file)
                problems.extend(file_problems)
                if entity is not None:
                    entities.append(entity)
                    continue
                ref, doc = unloaded_document(file)
                if ref is not None:
                    unloaded.append(ref)
                    if doc is not None:
                        documents.append((ref, doc))
            if cache is not None:
                cache.save()
        return cls(root, entities, files, unloaded, documents), problems

    @classmethod
    def load(cls, path: Path | str, *, cached: bool = False, cached_as: Path | None = None) -> ConfigRepo:
        """The repo, or UsageError (exit 2) naming the first problem when any entity is invalid."""
        repo, problems = cls.scan(path, cached=cached, cached_as=cached_as)
        repo.refuse(problems)
        return repo

    @classmethod
    def load_only(cls, path: Path | str, wanted: Iterable[EntityRef]) -> ConfigRepo:
        """The `wanted` entities and everything they reference, transitively, checked as `load` checks them.

        Each is looked for where the naming convention puts it (`processes/<name>.yaml`, lint rule RP001) and
        kept when that file declares it; otherwise every file's declaration is pre-scanned (prescan.py) and the
        files that declare it, or cannot be pre-scanned, are parsed. The files not needed are never parsed, so
        a problem in an unrelated entity does not stop the call (`toolkit lint` reports it). A wanted entity that
        no file declares falls back to `load`, whose errors name it and the known ones."""
        root, wanted = _require_repo(Path(path)), tuple(wanted)
        finder = _Finder(root)
        parsed: dict[Path, Entity] = {}
        failed: set[Path] = set()
        problems: list[Problem] = []
        frontier, seen = list(dict.fromkeys(wanted)), set(wanted)
        while frontier:
            ref = frontier.pop(0)
            for file in finder.files_of(ref):
                if file in parsed or file in failed:
                    continue
                entity, file_problems = finder.load(file)
                problems.extend(file_problems)
                if entity is None:
                    failed.add(file)
                    continue
                parsed[file] = entity
                for target in _references(entity):
                    if target not in seen:
                        seen.add(target)
                        frontier.append(target)
        files = sorted(parsed, key=lambda file: (_kind_rank(file), file.name))  # `entity_files` order
        repo = cls(root, [parsed[file] for file in files], files)
        repo.refuse(problems)
        if any(repo.find(ref) is None for ref in wanted):
            return cls.load(root)  # the full load names the unknown entity and the known ones, as it always did
        return repo

    def refuse(self, problems: list[Problem]) -> None:
        """UsageError (exit 2) naming the first of `problems`, or else the first name defined twice."""
        if problems:
            first = min(problems)
            count = f"{len(problems)} problem{'s' if len(problems) > 1 else ''}"
            raise UsageError(
                f"Config repo {self.display} has {count} (run `toolkit lint {self.root}` to list them all); "
                f"the first is {first.location}: {first.message}"
            )
        duplicates = self.duplicates()
        if duplicates:
            group = duplicates[0]
            files = " and ".join(str(entity.source_file) for entity in group)
            raise UsageError(
                f"Config repo {self.display} defines {group[0].kind.value} '{group[0].name}' more than once, "
                f"in {files}: rename or delete all but one."
            )

    @property
    def display(self) -> str:
        """The root as messages show it: `conf/`."""
        return f"{self.root.as_posix().rstrip('/')}/"

    def duplicates(self) -> list[tuple[Entity, ...]]:
        """Groups of entities that share a kind and a name (files in `entity_files` order)."""
        groups: dict[EntityRef, list[Entity]] = {}
        for entity in self.entities:
            groups.setdefault(entity.ref, []).append(entity)
        return [tuple(group) for group in groups.values() if len(group) > 1]

    # ------------------------------------------------------------------------------------- lookups

    def cluster(self, name: str) -> Cluster:
        """The cluster, or UsageError naming it and the known clusters."""
        return self._lookup(self.clusters, Kind.CLUSTER, name)

    def feed(self, name: str) -> Feed:
        """The feed, or UsageError naming it and the known feeds."""
        return self._lookup(self.feeds, Kind.FEED, name)

    def process(self, name: str) -> Process:
        """The process, or UsageError naming it and the known processes."""
        return self._lookup(self.processes, Kind.PROCESS, name)

    def datasource(self, name: str) -> Datasource:
        """The datasource, or UsageError naming it and the known datasources."""
        return self._lookup(self.datasources, Kind.DATASOURCE, name)

    def mirror(self, name: str) -> Mirror:
        """The mirror, or UsageError naming it and the known mirrors."""
        return self._lookup(self.mirrors, Kind.MIRROR, name)

    def get(self, ref: EntityRef) -> Entity:
        """The entity `ref` names, or UsageError as the lookups by kind."""
        return self._lookup(self._by_kind[ref.kind], ref.kind, ref.name)

    def find(self, ref: EntityRef) -> Entity | None:
        """The entity `ref` names, or None."""
        return self._by_kind[ref.kind].get(ref.name)

    def _lookup(self, named: Mapping[str, E], kind: Kind, name: str) -> E:
        entity = named.get(name)
        if entity is None:
            names = sorted(named)
            known = f"known {kind.folder} are {', '.join(names)}" if names else f"it has no {kind.folder}"
            raise UsageError(f"Unknown {kind.value} '{name}' in repo {self.display}: {known}.")
        return entity

    # ------------------------------------------------------------------------------ dependency graph

    @cached_property
    def _graph(self) -> _Graph:
        """The references between the entities, both ways: made on first use (a command that asks for none, as
        `toolkit metrics` of thousands of entities, does not pay for it)."""
        dependencies = {entity.ref: _references(entity)
                        for named in self._by_kind.values() for entity in named.values()}
        dependents: dict[EntityRef, list[EntityRef]] = {}
        for source, targets in dependencies.items():
            for target in targets:
                dependents.setdefault(target, []).append(source)
        return _Graph(dependencies, {target: tuple(sources) for target, sources in dependents.items()})

    def dependencies(self, entity: Entity | EntityRef) -> tuple[EntityRef, ...]:
        """What `entity` refers to: a feed its clusters and the datasources it imports from or exports to; a process
        its clusters, input and output feeds; a mirror the cluster it runs on, its source and its target.

        References are by name and may dangle (the linter reports those); a cluster or a datasource depends on
        nothing.
        """
        return self._graph.dependencies.get(_ref(entity), ())

    def dependents(self, entity: Entity | EntityRef) -> tuple[EntityRef, ...]:
        """What refers to `entity` (it may be missing from the repo), in `entity_files` order."""
        return self._graph.dependents.get(_ref(entity), ())

    def transitive_dependencies(self, entity: Entity | EntityRef) -> tuple[EntityRef, ...]:
        """Everything `entity` depends on, directly or not, nearest first."""
        return _closure(_ref(entity), self.dependencies)

    def transitive_dependents(self, entity: Entity | EntityRef) -> tuple[EntityRef, ...]:
        """Everything that depends on `entity`, directly or not, nearest first."""
        return _closure(_ref(entity), self.dependents)


class _Finder:
    """The files that may declare an entity: by the naming convention, else by a pre-scan of every file (once)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.scanned = False
        self._by_ref: dict[EntityRef, list[Path]] = {}
        self._loaded: dict[Path, tuple[Entity | None, list[Problem]]] = {}

    def load(self, file: Path) -> tuple[Entity | None, list[Problem]]:
        """`load_entity`, once per file."""
        if file not in self._loaded:
            self._loaded[file] = load_entity(file)
        return self._loaded[file]

    def files_of(self, ref: EntityRef) -> list[Path]:
        if not self.scanned:
            named = [file for suffix in ENTITY_SUFFIXES
                     if (file := self.root / ref.kind.folder / f"{ref.name}{suffix}").is_file()]
            if len(named) == 1 and (entity := self.load(named[0])[0]) is not None and entity.ref == ref:
                return named
        return self._scan(ref)

    def _scan(self, ref: EntityRef) -> list[Path]:
        """Every file the pre-scan says declares `ref`, and (the first time) those it cannot read."""
        unknown: list[Path] = []
        if not self.scanned:
            self.scanned = True
            for file in entity_files(self.root):
                found = declared(file)
                if found is None:
                    unknown.append(file)
                else:
                    self._by_ref.setdefault(found, []).append(file)
        return [*self._by_ref.get(ref, []), *unknown]


def _kind_rank(file: Path) -> int:
    """The position of a file's folder among the kind folders (`entity_files` order without a listing)."""
    folders = [kind.folder for kind in Kind]
    return folders.index(file.parent.name) if file.parent.name in folders else len(folders)


def _require_repo(path: Path) -> Path:
    if not path.exists():
        raise UsageError(f"Config repo {path} does not exist: pass the root directory of a config repo.")
    if not is_config_repo(path):
        raise UsageError(
            f"{path} is not a config repo: it has none of the folders clusters/, feeds/, processes/, datasources/, "
            "mirrors/; pass the root directory of a config repo."
        )
    return path


def _first_by_name(entities: Iterable[Entity], cls: type[E]) -> Mapping[str, E]:
    found: dict[str, E] = {}
    for entity in entities:
        if isinstance(entity, cls):
            found.setdefault(entity.name, entity)
    return MappingProxyType(found)


def _ref(entity: Entity | EntityRef) -> EntityRef:
    return entity if isinstance(entity, EntityRef) else entity.ref


def _references(entity: Entity) -> tuple[EntityRef, ...]:
    if isinstance(entity, Feed):
        refs = [EntityRef(Kind.CLUSTER, cluster.name) for cluster in entity.clusters]
        refs += [EntityRef(Kind.DATASOURCE, name) for cluster in entity.clusters for name in cluster.datasources]
    elif isinstance(entity, Process):
        refs = [EntityRef(Kind.CLUSTER, cluster.name) for cluster in entity.clusters]
        refs += [EntityRef(Kind.FEED, item.feed) for item in (*entity.inputs, *entity.outputs)]
    elif isinstance(entity, Mirror):
        refs = [EntityRef(Kind.CLUSTER, name) for name in entity.cluster_names]
    else:
        refs = []
    return tuple(dict.fromkeys(refs))


def _closure(start: EntityRef, step: Callable[[EntityRef], tuple[EntityRef, ...]]) -> tuple[EntityRef, ...]:
    """Breadth-first reachability from `start` (excluded), safe on cycles."""
    seen: dict[EntityRef, None] = {}
    frontier = [start]
    while frontier:
        following: list[EntityRef] = []
        for ref in frontier:
            for target in step(ref):
                if target != start and target not in seen:
                    seen[target] = None
                    following.append(target)
        frontier = following
    return tuple(seen)
