"""RP004: every referenced cluster and feed exists. This is what makes deleting a still-used feed or
cluster fail, so its findings are reported even when only other files were changed."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from toolkit.entities.model import Entity, Feed, Process
from toolkit.lint.context import LintContext
from toolkit.lint.rule import Finding, Rule, register
from toolkit.lint.rules.repo._known import known_names


@register
class MissingReference(Rule):
    code = "RP004"
    summary = "No reference to a cluster or feed that does not exist."
    reports_outside_selection = True

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        clusters, feeds = ctx.repo.clusters, ctx.repo.feeds
        for entity in ctx.repo.entities:
            if isinstance(entity, (Feed, Process)):
                for index, cluster in enumerate(entity.clusters):
                    yield from _missing(entity, cluster.name, clusters, "clusters", ("clusters", index, "name"))
            if isinstance(entity, Process):
                for field, items in (("inputs", entity.inputs), ("outputs", entity.outputs)):
                    for index, item in enumerate(items):
                        yield from _missing(entity, item.feed, feeds, "feeds", (field, index, "feed"))


def _missing(entity: Entity, name: str, known: Mapping[str, Entity], what: str,
             path: tuple[str | int, ...]) -> Iterator[Finding]:
    if name not in known:
        where = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in path).replace(".[", "[")
        yield Finding(entity, f"{where} {name!r} is not defined in this repo; {known_names(name, known, what)}.", path)
