"""CL001: a cluster declares the interfaces the actions read.

Why:
The actions reach a cluster through two interfaces: `write` is the root of its file system, under which every
feed path, the staging and the ledger lie; `readonly` is where the command line reads the ledger of an `hdfs://`
cluster (through WebHDFS) and what a Falcon shop already declares. A cluster without one of them fails only when an
action first needs it. `execute` and `workflow` (Falcon's job tracker and Oozie) are accepted, and checked by CL002
when given, but nothing here reads them: spark-submit's `--master` and the scheduler you have take their place.

Anti-pattern:

    interfaces:
      execute: {endpoint: "yarn"}
      workflow: {endpoint: "http://oozie:11000/oozie"}

Best practice:

    interfaces:
      readonly: {endpoint: "webhdfs://namenode:9870"}
      write: {endpoint: "hdfs://namenode:8020"}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Cluster

REQUIRED = ("readonly", "write")


@register
class RequiredInterfaces(EntityRule[Cluster]):
    code = "CL001"
    summary = "A cluster has the interfaces the actions read: readonly and write."
    kind = Kind.CLUSTER

    def check_entity(self, entity: Cluster, ctx: LintContext) -> Iterator[Finding]:
        missing = [name for name in REQUIRED if name not in entity.interfaces]
        if missing:
            yield Finding(
                entity,
                f"interfaces lacks {', '.join(missing)}; the actions read a cluster through {' and '.join(REQUIRED)} "
                "(write is the root of its file system, e.g. hdfs://namenode:8020).",
                ("interfaces",),
            )
