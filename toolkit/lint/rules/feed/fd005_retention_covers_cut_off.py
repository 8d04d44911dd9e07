"""FD005: on each cluster, the retention limit is at least the late-arrival cut-off, so an instance is not
deleted while late data for it may still arrive (see `_durations` for how months compare with days)."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.entities.kinds import Kind
from toolkit.entities.model import Feed
from toolkit.entities.problems import Severity
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register
from toolkit.lint.rules.feed._durations import Verdict, approximate_note, at_least, at_least_value, in_days


@register
class RetentionCoversCutOff(EntityRule):
    code = "FD005"
    summary = "The retention limit on each cluster is at least the late-arrival cut-off (months vs days: warning)."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        if entity.late_arrival is None:
            return
        cut_off = entity.late_arrival.cut_off
        for index, cluster in enumerate(entity.clusters):
            if cluster.retention is None:
                continue
            limit = cluster.retention.limit
            verdict = at_least(limit, cut_off)
            if verdict is Verdict.LONGER_OR_EQUAL:
                continue
            field = f"clusters[{index}].retention.limit {limit}"
            wanted = at_least_value(cut_off, limit)
            if verdict is Verdict.SHORTER:
                message = (
                    f"{field} on cluster '{cluster.name}' is shorter than late-arrival.cut-off {cut_off}"
                    f"{approximate_note(limit, cut_off)}: instances would be deleted while late data for them "
                    f"can still arrive; give a limit of at least {wanted}."
                )
                severity = None
            else:
                months = limit if in_days(limit) else cut_off
                message = (
                    f"{field} on cluster '{cluster.name}' is shorter than late-arrival.cut-off {cut_off} in the "
                    f"shorter months (approximate: {months} is {in_days(months)}), so some instances would be "
                    f"deleted while late data can still arrive; give a limit of at least {wanted}."
                )
                severity = Severity.WARNING
            yield Finding(entity, message, ("clusters", index, "retention", "limit"), severity=severity)
