"""What several feed rules share: a feed's storage on each cluster after overrides, its written
templates and catalog URIs with their YAML paths, and parsing that returns the error instead of raising
(the rule that owns the problem reports it; the others skip the value).

A cluster's own `locations` or `table` replace the feed's storage, never merge with it
(`Feed.locations_on`); here the same rule is applied by cluster index, so that a cluster listed twice
(FD022) is still looked at on its own, and each value keeps the YAML path a finding points at.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import Finding
from toolkit.core.el.templates import DATE_VARIABLES, CatalogTemplate
from toolkit.core.entities.document import FieldPath, format_path
from toolkit.core.entities.model import Feed, FeedCluster, FeedClusterType
from toolkit.errors import UsageError

FILES = "files"
TABLE = "table"

VARIABLE = re.compile(r"\$\{([^}]*)\}")
VARIABLES_TEXT = ", ".join(f"${{{name}}}" for name in DATE_VARIABLES)


def where(path: FieldPath) -> str:
    """`("clusters", 1, "locations", "data")` -> `clusters[1].locations.data`, as messages name a field."""
    return format_path(path)


def display_file(path: Path, ctx: LintContext) -> str:
    """The file as messages name it: relative to the repo root when inside it."""
    try:
        return path.relative_to(ctx.root).as_posix()
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class Storage:
    """The storage of a feed on one cluster: the cluster's own (`base` = ("clusters", i)) or the feed's
    (`base` = ())."""

    locations: Mapping[str, str]
    table: str | None
    base: FieldPath

    @property
    def own(self) -> bool:
        """True when the cluster defines its own storage (it replaces the feed's)."""
        return bool(self.base)

    @property
    def data(self) -> str | None:
        return self.locations.get("data")

    @property
    def kind(self) -> str | None:
        """FILES or TABLE; None when there is no storage or both (FD002 reports it)."""
        if self.table is not None:
            return TABLE if not self.locations else None
        return FILES if self.data is not None else None

    def path(self, *rest: str | int) -> FieldPath:
        return (*self.base, *rest)


def storage_on(feed: Feed, index: int) -> Storage:
    """The storage of `feed.clusters[index]` after overrides."""
    cluster = feed.clusters[index]
    if cluster.has_own_storage:
        return Storage(cluster.locations, cluster.table, ("clusters", index))
    return Storage(feed.locations, feed.table, ())


def storages(feed: Feed) -> Iterator[tuple[int, FeedCluster, Storage]]:
    for index, cluster in enumerate(feed.clusters):
        yield index, cluster, storage_on(feed, index)


def is_table_feed(feed: Feed) -> bool:
    """A feed stored in a catalog table on at least one of its clusters."""
    return any(storage.table is not None for _, _, storage in storages(feed))


def written_locations(feed: Feed) -> Iterator[tuple[FieldPath, str]]:
    """Every location template as written, the feed's and each cluster's, with its YAML path."""
    for type_, text in feed.locations.items():
        yield ("locations", type_), text
    for index, cluster in enumerate(feed.clusters):
        for type_, text in cluster.locations.items():
            yield ("clusters", index, "locations", type_), text


def written_data_paths(feed: Feed) -> Iterator[tuple[FieldPath, str]]:
    """The `data` templates as written, the feed's and each cluster's."""
    for path, text in written_locations(feed):
        if path[-1] == "data":
            yield path, text


def written_tables(feed: Feed) -> Iterator[tuple[FieldPath, str]]:
    """The catalog URIs as written, the feed's and each cluster's, with the YAML path of `uri`."""
    if feed.table is not None:
        yield ("table", "uri"), feed.table
    for index, cluster in enumerate(feed.clusters):
        if cluster.table is not None:
            yield ("clusters", index, "table", "uri"), cluster.table


@lru_cache(maxsize=8192)
def catalog(uri: str) -> CatalogTemplate | UsageError:
    """The parsed catalog URI, or the error saying why it is invalid (cached: URIs repeat across feeds)."""
    try:
        return CatalogTemplate(uri)
    except UsageError as err:
        return err


@lru_cache(maxsize=8192)
def unknown_variables(text: str) -> tuple[str, ...]:
    """The `${...}` names of `text` that are not date variables, in order, once each (cached)."""
    return tuple(dict.fromkeys(name for name in VARIABLE.findall(text) if name not in DATE_VARIABLES))


def suggest_variable(name: str) -> str:
    """` (did you mean ${YEAR}?)` for a near miss such as `year` or `YEARS`, else ''."""
    close = difflib.get_close_matches(name.strip().upper(), list(DATE_VARIABLES), n=1, cutoff=0.6)
    return f" (did you mean ${{{close[0]}}}?)" if close else ""


def date_variables_text(variables: frozenset[str]) -> str:
    """`${YEAR}/${MONTH}` style list in calendar order, or `no date variable`."""
    names = [f"${{{name}}}" for name in DATE_VARIABLES if name in variables]
    return ", ".join(names) if names else "no date variable"


def sources(feed: Feed) -> list[int]:
    return [i for i, cluster in enumerate(feed.clusters) if cluster.type is FeedClusterType.SOURCE]


def targets(feed: Feed) -> list[int]:
    return [i for i, cluster in enumerate(feed.clusters) if cluster.type is FeedClusterType.TARGET]


def partition_parts(expression: str | None) -> list[str]:
    """The parts of a cluster's partition expression, as Falcon normalized it: split on '/', empty parts
    (leading, trailing or doubled slashes, blanks) dropped."""
    if expression is None:
        return []
    return [part.strip() for part in expression.split("/") if part.strip()]


def property_findings(entity: Feed, checks: Mapping[str, Callable[[Feed], object]]) -> Iterator[Finding]:
    """A finding per property the feed sets whose parser (a settings module's, raising UsageError) refuses it,
    with the parser's sentence pointed at `properties.<name>`: the run and the linter say the same."""
    for name, check in checks.items():
        if name not in entity.properties:
            continue
        try:
            check(entity)
        except UsageError as err:
            sentence = str(err).replace(f"The property {name!r} of feed '{entity.name}'", f"properties.{name}")
            yield Finding(entity, sentence, ("properties", name))
