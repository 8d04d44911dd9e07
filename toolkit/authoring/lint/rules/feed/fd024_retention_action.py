"""FD024: the retention action is one the toolkit runs: delete, or archive of files to a known location.

Why:
`delete` always; `archive` for files, where the archive location is known, apart from the feed's folders and not
on an object store; Falcon's `chown` and `chmod` never: the run exits 2 before touching anything, so the
instances would stay forever. The checks are the retention entrypoint's own (each action's module in
toolkit/extensions/retention_actions/), so lint and a run say the same sentence.

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

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import TABLE, storages
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed
from toolkit.errors import UsageError
from toolkit.extensions.retention_actions.registry import retention_action_named


@register
class RunnableRetentionAction(EntityRule[Feed]):
    code = "FD024"
    summary = "The retention action is one the toolkit runs: delete, or archive of files to a known location."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for index, cluster, storage in storages(entity):
            if cluster.retention is None:
                continue
            action = retention_action_named(cluster.retention.action)
            try:  # the checks the retention entrypoint makes before anything is touched, in its sentences
                action.check(entity, cluster.name, ctx.repo.clusters.get(cluster.name), is_table=storage.kind == TABLE)
            except UsageError as err:
                yield Finding(entity, str(err), ("clusters", index, "retention", "action"))
