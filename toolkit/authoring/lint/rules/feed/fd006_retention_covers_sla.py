"""FD006: on each cluster, the retention limit is at least the SLA's slaHigh.

Why:
The cluster's SLA counts, else the feed's: an instance deleted before its slaHigh can never be seen missing its
SLA. Months and days compare only roughly (see `_durations`): when the order depends on the month, a warning.

Anti-pattern:

    sla: {slaLow: hours(2), slaHigh: days(3)}
    clusters:
      - name: primary
        retention: {limit: days(2), action: delete}

Best practice:

    sla: {slaLow: hours(2), slaHigh: days(3)}
    clusters:
      - name: primary
        retention: {limit: days(7), action: delete}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._durations import limit_shorter_than
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class RetentionCoversSla(EntityRule[Feed]):
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
            finding = limit_shorter_than(
                entity, index, sla.high, sla_field, "instances would be deleted before their SLA is missed",
                "some instances would be deleted before their SLA is missed")
            if finding is not None:
                yield finding
