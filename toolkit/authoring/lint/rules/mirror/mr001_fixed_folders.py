"""MR001: every folder of a mirror is a fixed absolute folder under its cluster's root, not the root itself.

Why:
A mirror writes everything under its target folder and, with `removeDeletedFiles`, deletes there what the source
no longer has: the folder must be spelled once (a `/` first, no `.` or `..` segment, no doubled slash, no
control character) and be a folder of its own, never the cluster root, or a run would delete what is not its own.
A `${...}` date variable means nothing here: a mirror copies the same folders at every run (feeds copy dated
instances: that is replication).

Anti-pattern:

    type: hdfs
    sourceDir: [/data/sales/../finance]
    targetDir: /

Best practice:

    type: hdfs
    sourceDir: [/data/finance]
    targetDir: /backup/finance
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.mirror_folders import folder_problem, mirror_folders
from toolkit.core.entities.model import Mirror


@register
class FixedFolders(EntityRule[Mirror]):
    code = "MR001"
    summary = "Every folder of a mirror is a fixed absolute folder under its cluster's root, not the root itself."
    kind = Kind.MIRROR

    def check_entity(self, entity: Mirror, ctx: LintContext) -> Iterator[Finding]:
        for folder in mirror_folders(entity):
            problem = folder_problem(folder.value)
            if problem is not None:
                yield Finding(entity, f"{folder.named} {problem}.", folder.field)
