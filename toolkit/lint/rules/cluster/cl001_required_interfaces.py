"""CL001: a cluster declares the interfaces every action needs.

Why:
Every action reads or writes through the cluster's interfaces: `readonly` and `write` are its file system (`write`
is the root under which every feed path lies), `execute` where jobs run and `workflow` the scheduler that calls
the entrypoints. A cluster without one of them fails only when an action first needs it.

Anti-pattern:

    interfaces:
      readonly: {endpoint: "hdfs://namenode:8020"}
      write: {endpoint: "hdfs://namenode:8020"}

Best practice:

    interfaces:
      readonly: {endpoint: "webhdfs://namenode:9870"}
      write: {endpoint: "hdfs://namenode:8020"}
      execute: {endpoint: "yarn"}
      workflow: {endpoint: "cron://localhost"}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.entities.kinds import Kind
from toolkit.entities.model import Cluster
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register

REQUIRED = ("readonly", "write", "execute", "workflow")


@register
class RequiredInterfaces(EntityRule[Cluster]):
    code = "CL001"
    summary = "A cluster has the interfaces readonly, write, execute and workflow."
    kind = Kind.CLUSTER

    def check_entity(self, entity: Cluster, ctx: LintContext) -> Iterator[Finding]:
        missing = [name for name in REQUIRED if name not in entity.interfaces]
        if missing:
            yield Finding(
                entity,
                f"interfaces lacks {', '.join(missing)}; every cluster needs {', '.join(REQUIRED)} "
                "(write is the root of its file system, e.g. hdfs://namenode:8020).",
                ("interfaces",),
            )
