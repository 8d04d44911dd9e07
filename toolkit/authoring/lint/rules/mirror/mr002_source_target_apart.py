"""MR002: on one file system, a mirror's source and target folders do not meet.

Why:
A target inside its source would be copied into itself at every run, growing without end; a source inside its
target would be overwritten by its own copy, and `removeDeletedFiles` would delete it. Two clusters are one file
system when they are the same cluster or their write endpoints are the same root.

Anti-pattern:

    type: hdfs
    sourceCluster: primary
    targetCluster: primary
    sourceDir: [/data/sales]
    targetDir: /data/sales/backup

Best practice:

    type: hdfs
    sourceCluster: primary
    targetCluster: primary
    sourceDir: [/data/sales]
    targetDir: /backup/sales
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.ingest_folders import relation
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.mirror_folders import Side, folder_problem, mirror_folders, same_file_system
from toolkit.core.entities.model import Mirror


@register
class SourceTargetApart(EntityRule[Mirror]):
    code = "MR002"
    summary = "On one file system, a mirror's source and target folders do not meet."
    kind = Kind.MIRROR

    def check_entity(self, entity: Mirror, ctx: LintContext) -> Iterator[Finding]:
        if not same_file_system(ctx.repo, entity.source_cluster, entity.target_cluster):
            return
        folders = [folder for folder in mirror_folders(entity) if folder_problem(folder.value) is None]
        sources = [folder for folder in folders if folder.side is Side.SOURCE]
        for target in (folder for folder in folders if folder.side is Side.TARGET):
            for source in sources:
                how = relation(target.path, source.path)
                if how is not None:
                    yield Finding(entity, f"{target.named} {how} {source.named} {_where(entity)}: the copy would "
                                  "copy itself or overwrite its source; give the target a folder apart from every "
                                  "source.", target.field)


def _where(entity: Mirror) -> str:
    """Where both folders are, as the end of the finding's first clause says it."""
    if entity.source_cluster == entity.target_cluster:
        return f"on cluster '{entity.source_cluster}'"
    return (f"on one file system (clusters '{entity.source_cluster}' and '{entity.target_cluster}' have one write "
            "endpoint)")
