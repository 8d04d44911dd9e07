"""MR003: what a mirror writes is its own: apart from every feed's folders, the clusters' own locations and other
mirrors' folders on that file system.

Why:
A mirror overwrites what it copies under its target folder and, with `removeDeletedFiles`, deletes there whatever
the source does not have; a hive mirror also writes its exports into its staging folders. Such a folder at, inside
or around a feed's data (the fixed folder before the first `${...}` of its `data` location), its landing or
dead-letter folder, a cluster's staging, temp or working location (where the toolkit keeps its files and the
ledger), or a folder another mirror writes on the same file system would overwrite or delete files that are not
the mirror's, and their writers would write into its copy.

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
from toolkit.core.entities.model import Mirror


@register
class TargetOwned(EntityRule[Mirror]):
    code = "MR003"
    summary = ("What a mirror writes is apart from every feed's folders, the clusters' locations and other mirrors' "
               "folders there.")
    kind = Kind.MIRROR

    def check_entity(self, entity: Mirror, ctx: LintContext) -> Iterator[Finding]:
        for meeting in ctx.written_folders.meetings(entity):
            yield Finding(entity, f"{meeting.mine.named} {meeting.how} {meeting.theirs}: the mirror would overwrite "
                          "or delete files that are not its own; give it a folder of its own, such as "
                          f"/mirrors/{entity.name}.", meeting.mine.field)
