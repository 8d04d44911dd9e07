"""FD024: the retention action is one the toolkit runs: delete, or archive of files to a known location.

Why:
`delete` always; `archive` for files, where the archive location is known; Falcon's `chown` and `chmod` never:
the run exits 2 before touching anything, so the instances would stay forever.

Anti-pattern:

    clusters:
      - name: primary
        retention: {limit: days(90), action: chmod}

Best practice: or `action: archive` with `locations: {archive: /archive}` on the cluster (or the feed property
`retention.archive`).

    clusters:
      - name: primary
        retention: {limit: days(90), action: delete}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.entities.kinds import Kind
from toolkit.entities.model import Feed, RetentionAction
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register
from toolkit.lint.rules.feed._common import TABLE, storages

ARCHIVE_PROPERTY = "retention.archive"


@register
class RunnableRetentionAction(EntityRule[Feed]):
    code = "FD024"
    summary = "The retention action is one the toolkit runs: delete, or archive of files to a known location."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for index, cluster, storage in storages(entity):
            if cluster.retention is None or cluster.retention.action is RetentionAction.DELETE:
                continue
            action = cluster.retention.action.value
            at = f"clusters[{index}].retention.action '{action}' on cluster '{cluster.name}'"
            path = ("clusters", index, "retention", "action")
            if cluster.retention.action is not RetentionAction.ARCHIVE:
                yield Finding(entity, f"{at} is Falcon's and the toolkit does not run it: the retention would exit 2 "
                              "and keep every instance; set it to delete or archive.", path)
            elif storage.kind == TABLE:
                yield Finding(entity, f"{at} applies to a catalog table, which the toolkit does not archive (only "
                              "file feeds): set it to delete, or export the partitions first.", path)
            elif ARCHIVE_PROPERTY not in entity.properties:
                target = ctx.repo.clusters.get(cluster.name)
                if target is not None and target.location("archive") is None:
                    yield Finding(entity, f"{at} needs an archive location, and cluster '{cluster.name}' has none: "
                                  "add locations.archive to the cluster (e.g. /archive), or the feed property "
                                  f"{ARCHIVE_PROPERTY}.", path)
