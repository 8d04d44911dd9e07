"""FD003: where a feed is a catalog table, its cluster has a `registry` interface (the metastore).

Why:
A catalog table is found through the cluster's metastore: without a `registry` interface no action can read,
write or drop its partitions there. A cluster the repo does not define is skipped: RP004 reports missing
references.

Anti-pattern: the feed is `table: {uri: catalog:web:clicks#ds=${YEAR}-${MONTH}-${DAY}}`, on a cluster with

    interfaces:
      write: {endpoint: "hdfs://namenode:8020"}

Best practice:

    interfaces:
      write: {endpoint: "hdfs://namenode:8020"}
      registry: {endpoint: "thrift://metastore:9083"}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import display_file, storages
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class TableRegistry(EntityRule[Feed]):
    code = "FD003"
    summary = "A cluster where the feed is a catalog table has a registry interface."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for index, feed_cluster, storage in storages(entity):
            if storage.table is None:
                continue
            cluster = ctx.repo.clusters.get(feed_cluster.name)
            if cluster is None or cluster.registry_endpoint is not None:
                continue
            yield Finding(
                entity,
                f"clusters[{index}].name '{feed_cluster.name}': the feed is the catalog table {storage.table!r} "
                f"there, but cluster '{feed_cluster.name}' has no registry interface; add "
                "interfaces.registry.endpoint (the Hive metastore, e.g. thrift://metastore:9083) to "
                f"{display_file(cluster.source_file, ctx)}, or store the feed in files on this cluster.",
                ("clusters", index, "name"),
            )

