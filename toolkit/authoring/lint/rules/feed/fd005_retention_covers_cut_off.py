"""FD005: on each cluster, the retention limit is at least the late-arrival cut-off.

Why:
Otherwise an instance is deleted while late data for it may still arrive. Months and days compare only roughly
(see `_durations`): when the order depends on the month, the finding is a warning.

Anti-pattern:

    late-arrival: {cut-off: days(3)}
    clusters:
      - name: primary
        retention: {limit: days(2), action: delete}

Best practice:

    late-arrival: {cut-off: days(3)}
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
class RetentionCoversCutOff(EntityRule[Feed]):
    code = "FD005"
    summary = "The retention limit on each cluster is at least the late-arrival cut-off (months vs days: warning)."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        if entity.late_arrival is None:
            return
        for index, cluster in enumerate(entity.clusters):
            if cluster.retention is None:
                continue
            finding = limit_shorter_than(
                entity, index, entity.late_arrival.cut_off, "late-arrival.cut-off",
                "instances would be deleted while late data for them can still arrive",
                "some instances would be deleted while late data can still arrive")
            if finding is not None:
                yield finding
