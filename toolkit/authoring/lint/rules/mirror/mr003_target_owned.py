"""MR003: a mirror's target folder is its own: apart from every feed's folders and other mirrors' targets there.

Why:
A mirror overwrites what it copies under its target folder and, with `removeDeletedFiles`, deletes there whatever
the source does not have. A target at, inside or around a feed's data (the fixed folder before the first `${...}`
of its `data` location), its landing or dead-letter folder, or another mirror's target on the same file system
would overwrite or delete another entity's files, and their writers would write into the copy.

Anti-pattern: feed clicks keeps /data/clicks/${YEAR}/... on cluster backup.

    type: hdfs
    targetCluster: backup
    targetDir: /data

Best practice:

    type: hdfs
    targetCluster: backup
    targetDir: /mirrors/sales
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.mirror_folders import target_meetings
from toolkit.core.entities.model import Mirror


@register
class TargetOwned(EntityRule[Mirror]):
    code = "MR003"
    summary = "A mirror's target folder is apart from every feed's folders and other mirrors' targets there."
    kind = Kind.MIRROR

    def check_entity(self, entity: Mirror, ctx: LintContext) -> Iterator[Finding]:
        for meeting in target_meetings(ctx.repo, entity):
            yield Finding(entity, f"{meeting.mine.named} {meeting.how} {meeting.theirs}: the mirror would overwrite "
                          "or delete files that are not its own; give it a folder of its own, such as "
                          f"/mirrors/{entity.name}.", meeting.mine.field)
