"""FD011: the date variables of the data path (or catalog URI) are at least as fine as the frequency.

Why:
An hourly feed without ${HOUR} writes 24 instances to one path, each overwriting the last. A path dated to the
day holds one instance when the frequency is at least a day; to the month, when it is at least 31 days (or a
month); to the year (${YEAR} alone), when it is at least 366 days (or 12 months). Falcon accepted it, hence a
warning.

Anti-pattern:

    frequency: hours(1)
    locations: {data: "/data/clicks/${YEAR}/${MONTH}/${DAY}"}

Best practice:

    frequency: hours(1)
    locations: {data: "/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import (
    catalog,
    unknown_variables,
    where,
    written_data_paths,
    written_tables,
)
from toolkit.core.el.templates import DATE_VARIABLES
from toolkit.core.entities.document import FieldPath
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed
from toolkit.core.entities.problems import Severity

# The longest time one value of the finest variable covers, in minutes (a month: 31 days; a year: 366).
GRANULE_MINUTES = {"YEAR": 366 * 1440, "MONTH": 31 * 1440, "DAY": 1440, "HOUR": 60, "MINUTE": 1}
FINER = {"YEAR": "${MONTH}", "MONTH": "${DAY}", "DAY": "${HOUR}", "HOUR": "${MINUTE}"}


def finest(variables: frozenset[str]) -> str | None:
    names = [name for name in DATE_VARIABLES if name in variables]
    return names[-1] if names else None


@register
class Granularity(EntityRule[Feed]):
    code = "FD011"
    summary = "The data path's date variables are coarser than the frequency (hourly without ${HOUR})."
    severity = Severity.WARNING
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for path, text in written_data_paths(entity):
            if unknown_variables(text):
                continue  # FD008
            template = ctx.template(text)
            if not isinstance(template, Exception):
                yield from self._check(entity, path, text, template.variables)
        for path, uri in written_tables(entity):
            parsed = catalog(uri)
            if not isinstance(parsed, Exception):
                yield from self._check(entity, path, uri, parsed.variables)

    def _check(self, entity: Feed, path: FieldPath, text: str, variables: frozenset[str]) -> Iterator[Finding]:
        name = finest(variables)
        if name is None or "YEAR" not in variables:
            return  # undated (FD012 warns where retention needs dates) or not datable (FD009)
        if GRANULE_MINUTES[name] <= entity.frequency.approx_minutes():
            return
        yield Finding(
            entity,
            f"{where(path)} {text!r} is dated to the {name.lower()} (its finest variable is ${{{name}}}), coarser "
            f"than the frequency {entity.frequency}: several instances would share one path and overwrite each "
            f"other; add {FINER[name]} (and finer variables down to the frequency), or make the frequency coarser.",
            path,
        )
