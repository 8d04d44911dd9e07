"""FD007: slaLow (the warning) is not later than slaHigh (the miss), in the feed's SLA and each cluster's.

Why:
The warning comes before the miss: with slaLow after slaHigh, an instance is missed before anyone is warned.
Months and days compare only roughly (see `_durations`): when the order depends on the month, a warning.

Anti-pattern:

    sla: {slaLow: hours(6), slaHigh: hours(4)}

Best practice:

    sla: {slaLow: hours(2), slaHigh: hours(4)}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import where
from toolkit.authoring.lint.rules.feed._durations import Verdict, approximate_note, at_least, in_days
from toolkit.core.entities.document import FieldPath
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed, Sla
from toolkit.core.entities.problems import Severity


@register
class SlaOrder(EntityRule[Feed]):
    code = "FD007"
    summary = "slaLow is not after slaHigh, in the feed's SLA and each cluster's (months vs days: warning)."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        slas: list[tuple[FieldPath, Sla]] = [(("sla",), entity.sla)] if entity.sla is not None else []
        slas += [(("clusters", i, "sla"), c.sla) for i, c in enumerate(entity.clusters) if c.sla is not None]
        for base, sla in slas:
            verdict = at_least(sla.high, sla.low)
            if verdict is Verdict.LONGER_OR_EQUAL:
                continue
            low_field, high_field = where((*base, "slaLow")), where((*base, "slaHigh"))
            if verdict is Verdict.SHORTER:
                message = (
                    f"{low_field} {sla.low} is after {high_field} {sla.high}{approximate_note(sla.low, sla.high)}; "
                    f"slaLow (in danger) must come no later than slaHigh (missed): make {low_field} at most "
                    f"{sla.high}, or {high_field} later."
                )
                severity = None
            else:
                months = sla.low if in_days(sla.low) else sla.high
                message = (
                    f"{low_field} {sla.low} is after {high_field} {sla.high} in some months (approximate: {months} "
                    f"is {in_days(months)}); slaLow must come no later than slaHigh: write both in the same unit."
                )
                severity = Severity.WARNING
            yield Finding(entity, message, (*base, "slaLow"), severity=severity)
