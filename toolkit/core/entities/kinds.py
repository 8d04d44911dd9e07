"""Entity kinds and references: what the dependency graph, the problems and the linter talk about."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Kind(str, Enum):
    """The entity kinds; `folder` is the repo folder where their files live."""

    CLUSTER = "cluster"
    FEED = "feed"
    PROCESS = "process"
    DATASOURCE = "datasource"
    MIRROR = "mirror"

    @property
    def folder(self) -> str:
        """`clusters`, `feeds`, `processes`, `datasources` or `mirrors`: the config repo's folder = kind (plural)."""
        return _FOLDERS[self]

    @property
    def label(self) -> str:
        """`Cluster`, `Feed`, `Process`, `Datasource` or `Mirror`, as messages start with it."""
        return self.value.capitalize()


_FOLDERS = {Kind.CLUSTER: "clusters", Kind.FEED: "feeds", Kind.PROCESS: "processes", Kind.DATASOURCE: "datasources",
            Kind.MIRROR: "mirrors"}


@dataclass(frozen=True, order=True)
class EntityRef:
    """A reference to an entity by kind and name; the entity may not exist (a dangling reference)."""

    kind: Kind
    name: str

    def __str__(self) -> str:
        return f"{self.kind.value}/{self.name}"
