"""FD009: a path template or catalog URI with date variables can date its instances.

Why:
Retention and replication read an instance's time back from its path, which works only when the template has
${YEAR} and every coarser variable of its finest one: `${YEAR}/${DAY}` would read February 5 back as January 5.

Anti-pattern:

    locations:
      data: /data/clicks/${YEAR}/${DAY}

Best practice:

    locations:
      data: /data/clicks/${YEAR}/${MONTH}/${DAY}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import (
    catalog,
    unknown_variables,
    where,
    written_locations,
    written_tables,
)
from toolkit.core.el.templates import DATE_VARIABLES
from toolkit.core.entities.document import FieldPath
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed

ORDER = tuple(DATE_VARIABLES)


def missing_coarser(variables: frozenset[str]) -> list[str]:
    """The date variables coarser than the finest of `variables` that it lacks (YEAR first)."""
    finest = max((ORDER.index(name) for name in variables), default=-1)
    return [name for name in ORDER[: finest + 1] if name not in variables]


@register
class DatableTemplates(EntityRule[Feed]):
    code = "FD009"
    summary = "A template with date variables has ${YEAR} and every coarser variable, so instances can be dated."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for path, text in written_locations(entity):
            if unknown_variables(text):
                continue  # FD008
            template = ctx.template(text)
            if isinstance(template, Exception):
                continue
            yield from _check(entity, path, text, template.variables, "path", PATH_EXAMPLE)
        for path, uri in written_tables(entity):
            parsed = catalog(uri)
            if not isinstance(parsed, Exception):
                yield from _check(entity, path, uri, parsed.variables, "partition", TABLE_EXAMPLE)


PATH_EXAMPLE = "${YEAR}/${MONTH}/${DAY}/${HOUR} for hourly data"
TABLE_EXAMPLE = "ds=${YEAR}-${MONTH}-${DAY};hr=${HOUR} for hourly data"


def _check(entity: Feed, path: FieldPath, text: str, variables: frozenset[str], what: str,
           example: str) -> Iterator[Finding]:
    missing = missing_coarser(variables)
    if not missing:
        return
    names = ", ".join(f"${{{name}}}" for name in missing)
    finest = ORDER[max(ORDER.index(name) for name in variables)]
    yield Finding(
        entity,
        f"{where(path)} {text!r} has ${{{finest}}} but not {names}, so an instance's {what} cannot be turned back "
        f"into its time (retention and availability checks would skip or misdate it); add {names}, e.g. {example}.",
        path,
    )
