"""FD010: every cluster's own data path (or catalog URI) uses the same date variables as the feed's.

Why:
Replication and retention map paths by time: an instance must have the same date on every cluster, so a
cluster's own path cannot drop or add a date variable.

Anti-pattern:

    locations: {data: "/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"}
    clusters:
      - name: backup
        locations: {data: "/replica/clicks/${YEAR}/${MONTH}/${DAY}"}

Best practice:

    locations: {data: "/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"}
    clusters:
      - name: backup
        locations: {data: "/replica/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import catalog, date_variables_text, unknown_variables, where
from toolkit.core.entities.document import FieldPath
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed

Dated = tuple[FieldPath, str, frozenset[str]]


@register
class SameDateVariables(EntityRule[Feed]):
    code = "FD010"
    summary = "Each cluster's data path (or table URI) uses the same date variables as the feed's."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        paths: list[Dated] = []
        tables: list[Dated] = []
        if "data" in entity.locations:
            paths += _path(ctx, ("locations", "data"), entity.locations["data"])
        if entity.table is not None:
            tables += _table(("table", "uri"), entity.table)
        for index, cluster in enumerate(entity.clusters):
            if "data" in cluster.locations:
                paths += _path(ctx, ("clusters", index, "locations", "data"), cluster.locations["data"])
            if cluster.table is not None:
                tables += _table(("clusters", index, "table", "uri"), cluster.table)
        for dated in (paths, tables):
            yield from _compare(entity, dated)


def _path(ctx: LintContext, path: FieldPath, text: str) -> list[Dated]:
    if unknown_variables(text):
        return []  # FD008
    template = ctx.template(text)
    return [] if isinstance(template, Exception) else [(path, text, template.variables)]


def _table(path: FieldPath, uri: str) -> list[Dated]:
    parsed = catalog(uri)
    return [] if isinstance(parsed, Exception) else [(path, uri, parsed.variables)]


def _compare(entity: Feed, dated: list[Dated]) -> Iterator[Finding]:
    """Each value against the first one: the feed's own when it has one, else the first cluster's."""
    if len(dated) < 2:
        return
    (first_path, first_text, first_variables), rest = dated[0], dated[1:]
    reference = "the feed's" if first_path[0] != "clusters" else "the first cluster's"
    for path, text, variables in rest:
        if variables == first_variables:
            continue
        yield Finding(
            entity,
            f"{where(path)} {text!r} has the date variables {date_variables_text(variables)}, but "
            f"{reference} {where(first_path)} {first_text!r} has {date_variables_text(first_variables)}; "
            f"an instance must have the same date on every cluster: {_fix(first_variables)}.",
            path,
        )


def _fix(wanted: frozenset[str]) -> str:
    return f"use {date_variables_text(wanted)} here too" if wanted else "remove the date variables here too"
