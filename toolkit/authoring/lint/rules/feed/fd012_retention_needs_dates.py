"""FD012: a cluster with a retention policy stores the feed under a dated path (or catalog URI).

Why:
Retention finds instances by the dates in their paths and skips a path without date variables, so the policy
deletes nothing. Falcon accepted it, hence a warning.

Anti-pattern:

    locations: {data: /data/lookup}
    clusters:
      - name: primary
        retention: {limit: days(90), action: delete}

Best practice: a dated path, or no retention policy for an undated feed.

    locations: {data: "/data/lookup/${YEAR}/${MONTH}/${DAY}"}
    clusters:
      - name: primary
        retention: {limit: days(90), action: delete}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import FILES, TABLE, catalog, storages, unknown_variables, where
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed
from toolkit.core.entities.problems import Severity


@register
class RetentionNeedsDates(EntityRule[Feed]):
    code = "FD012"
    summary = "A retention policy on a path (or table) without date variables deletes nothing."
    severity = Severity.WARNING
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for index, cluster, storage in storages(entity):
            if cluster.retention is None:
                continue
            if storage.kind == FILES:
                field, text = storage.path("locations", "data"), storage.data or ""
                if unknown_variables(text):
                    continue  # FD008
                template = ctx.template(text)
                if isinstance(template, Exception) or template.is_dated:
                    continue
            elif storage.kind == TABLE:
                field, text = storage.path("table", "uri"), storage.table or ""
                parsed = catalog(text)
                if isinstance(parsed, Exception) or parsed.variables:
                    continue
            else:
                continue  # FD002
            yield Finding(
                entity,
                f"clusters[{index}].retention on cluster '{cluster.name}' applies to {where(field)} {text!r}, "
                "which has no date variable, so retention cannot tell the age of any instance and deletes "
                "nothing; date the path (e.g. .../${YEAR}/${MONTH}/${DAY}) or remove the retention.",
                ("clusters", index, "retention"),
            )
