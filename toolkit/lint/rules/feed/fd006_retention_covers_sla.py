"""FD006: on each cluster, the retention limit is at least the SLA's slaHigh (the cluster's SLA, else the
feed's), so an instance is not deleted before it can miss its SLA (months vs days: see `_durations`)."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.entities.kinds import Kind
from toolkit.entities.model import Feed
from toolkit.entities.problems import Severity
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register
from toolkit.lint.rules.feed._durations import Verdict, approximate_note, at_least, at_least_value, in_days


@register
class RetentionCoversSla(EntityRule):
    code = "FD006"
    summary = "The retention limit on each cluster is at least its slaHigh (months vs days: warning)."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for index, cluster in enumerate(entity.clusters):
            if cluster.retention is None:
                continue
            if cluster.sla is not None:
                sla, sla_field = cluster.sla, f"clusters[{index}].sla.slaHigh"
            elif entity.sla is not None:
                sla, sla_field = entity.sla, "sla.slaHigh"
            else:
                continue
            limit, high = cluster.retention.limit, sla.high
            verdict = at_least(limit, high)
            if verdict is Verdict.LONGER_OR_EQUAL:
                continue
            field = f"clusters[{index}].retention.limit {limit}"
            wanted = at_least_value(high, limit)
            if verdict is Verdict.SHORTER:
                message = (
                    f"{field} on cluster '{cluster.name}' is shorter than {sla_field} {high}"
                    f"{approximate_note(limit, high)}: instances would be deleted before their SLA is missed; "
                    f"give a limit of at least {wanted}."
                )
                severity = None
            else:
                months = limit if in_days(limit) else high
                message = (
                    f"{field} on cluster '{cluster.name}' is shorter than {sla_field} {high} in the shorter months "
                    f"(approximate: {months} is {in_days(months)}), so some instances would be deleted before "
                    f"their SLA is missed; give a limit of at least {wanted}."
                )
                severity = Severity.WARNING
            yield Finding(entity, message, ("clusters", index, "retention", "limit"), severity=severity)
