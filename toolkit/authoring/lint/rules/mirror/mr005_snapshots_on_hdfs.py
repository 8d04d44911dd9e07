"""MR005: an hdfs-snapshot mirror's source and target clusters are HDFS.

Why:
The mirror takes a snapshot of the source folder at every run and copies the difference since the last one it
copied; only HDFS has snapshots (through the NameNode, or WebHDFS's snapshot operations). A cluster whose write
endpoint is a local file system or an object store has none: the run would be refused. Mirror such folders with
`type: hdfs`, which compares the files themselves.

Anti-pattern:

    type: hdfs-snapshot
    sourceCluster: primary        # write endpoint file:///srv/primary

Best practice:

    type: hdfs                    # or clusters whose write endpoint is hdfs:// or webhdfs://
    sourceCluster: primary
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Mirror, MirrorType

SNAPSHOT_SCHEMES = ("hdfs://", "webhdfs://", "swebhdfs://")


@register
class SnapshotsOnHdfs(EntityRule[Mirror]):
    code = "MR005"
    summary = "An hdfs-snapshot mirror's source and target clusters are HDFS (only HDFS has snapshots)."
    kind = Kind.MIRROR

    def check_entity(self, entity: Mirror, ctx: LintContext) -> Iterator[Finding]:
        if entity.type is not MirrorType.HDFS_SNAPSHOT:
            return
        for field, name in (("sourceCluster", entity.source_cluster), ("targetCluster", entity.target_cluster)):
            cluster = ctx.repo.clusters.get(name)
            root = None if cluster is None else cluster.write_endpoint
            if root is not None and not root.lower().startswith(SNAPSHOT_SCHEMES):
                yield Finding(entity, f"{field} '{name}' writes to {root}, which has no snapshots (only HDFS has): "
                              "give clusters whose write endpoint is hdfs:// or webhdfs://, or mirror the folder "
                              "with type: hdfs.", (field,))
