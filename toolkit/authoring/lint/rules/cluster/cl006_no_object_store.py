"""CL006: the cluster's file system is not an object store.

Why:
Object stores (s3a://, s3://, s3n://, abfs://, abfss://, wasb://, wasbs://, gs://, oss://) do not give by default
what the toolkit needs: the ledger's locks need an atomic exclusive create and publishing an atomic rename. Every
action refuses such a cluster (exit 2), so the linter reports it first.

Anti-pattern:

    interfaces:
      write: {endpoint: "s3a://bucket/warehouse"}

Best practice: or file:///mnt/share for a mounted file system.

    interfaces:
      write: {endpoint: "hdfs://namenode:8020"}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Cluster
from toolkit.core.entities.object_stores import cluster_problems


@register
class NoObjectStore(EntityRule[Cluster]):
    code = "CL006"
    summary = "No endpoint or location of the cluster is on an object store (no atomic create or rename there)."
    kind = Kind.CLUSTER

    def check_entity(self, entity: Cluster, ctx: LintContext) -> Iterator[Finding]:
        for path, problem in cluster_problems(entity):
            yield Finding(entity, problem, path)
