"""Checks that feeds and processes share, each written once: the FD and PR rules that apply them keep
their own codes (a rule is one concern of one kind)."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.rule import Finding
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.launcher_settings import launcher_problems
from toolkit.core.entities.model import Feed, FeedCluster, Mirror, Process, ProcessCluster
from toolkit.errors import UsageError


def repeated_clusters(entity: Feed | Process, advice: str) -> Iterator[Finding]:
    """A finding for each entry of `clusters` that names a cluster an earlier entry already names."""
    first: dict[str, int] = {}
    clusters: tuple[FeedCluster | ProcessCluster, ...] = entity.clusters
    for index, cluster in enumerate(clusters):
        if cluster.name in first:
            yield Finding(entity, f"clusters[{index}].name '{cluster.name}' is already listed as "
                          f"clusters[{first[cluster.name]}]; list each cluster once, {advice}.",
                          ("clusters", index, "name"))
        else:
            first[cluster.name] = index


def unknown_time_zone(entity: Feed | Process | Mirror) -> Iterator[Finding]:
    """A finding when the entity's time zone (`timezone`, a mirror's `jobTimezone`) is no IANA zone (an unknown
    name is never read as UTC)."""
    field, zone = ("jobTimezone", entity.job_timezone) if isinstance(entity, Mirror) else ("timezone", entity.timezone)
    try:
        resolve_zone(zone)
    except UsageError:
        yield Finding(entity, f"{field} {zone!r} is not an IANA time zone; give a name such as UTC, "
                      "Europe/Berlin or America/Los_Angeles (names are case-sensitive; a fixed offset is "
                      "Etc/GMT-5 for UTC+5: the sign is inverted).", (field,))


def bad_launcher_properties(entity: Feed | Process) -> Iterator[Finding]:
    """A finding for `queueName` or `jobPriority` with a value YARN would refuse (the action would exit 2)."""
    for name, problem in launcher_problems(entity).items():
        yield Finding(entity, f"properties.{name} {problem}", ("properties", name))
