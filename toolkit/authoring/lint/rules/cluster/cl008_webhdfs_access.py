"""CL008: an HDFS cluster's readonly interface is a WebHDFS address, and its webhdfs.* properties can work.

Why:
The command line (`toolkit status`, `suspend`, `trigger` ...) reads and writes an HDFS cluster's ledger without a
JVM, through WebHDFS at the cluster's `readonly` interface (Falcon's readonly interface was HFTP, which WebHDFS
replaced at the same namenode HTTP address). An `hdfs://` readonly endpoint cannot be reached that way: the
commands refuse the cluster (a warning, as the Spark actions do not need it). A WebHDFS address with a user name,
password or path in it, a `webhdfs.auth` other than `simple` or `kerberos`, or a blank `webhdfs.user` are errors.

Anti-pattern:

    interfaces:
      readonly: {endpoint: "hdfs://namenode:8020"}
      write: {endpoint: "hdfs://namenode:8020"}

Best practice:

    interfaces:
      readonly: {endpoint: "webhdfs://namenode:9870"}
      write: {endpoint: "hdfs://namenode:8020"}
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Cluster
from toolkit.core.entities.problems import Severity
from toolkit.core.entities.webhdfs_access import (
    WEBHDFS_FILE_SYSTEMS,
    address_problem,
    is_webhdfs_cluster,
    settings_problems,
)
from toolkit.secrets_masking import masked


@register
class WebHdfsAccess(EntityRule[Cluster]):
    code = "CL008"
    summary = ("An HDFS cluster's readonly endpoint is a WebHDFS address (webhdfs://namenode:9870) and its webhdfs.* "
               "properties are valid.")
    kind = Kind.CLUSTER

    def check_entity(self, entity: Cluster, ctx: LintContext) -> Iterator[Finding]:
        readonly = entity.interface("readonly")
        if readonly is not None and (is_webhdfs_cluster(entity) or _names_webhdfs(readonly.endpoint)):
            problem = address_problem(readonly.endpoint)
            if problem is not None:
                # a readonly endpoint that is simply not WebHDFS only keeps the command line out: a warning
                not_webhdfs = urlsplit(readonly.endpoint).scheme.lower() not in ("webhdfs", "swebhdfs", "http",
                                                                                  "https")
                yield Finding(entity, f"interfaces.readonly.endpoint {masked(readonly.endpoint)!r} {problem}",
                              ("interfaces", "readonly", "endpoint"),
                              severity=Severity.WARNING if not_webhdfs else None)
        for name, what in settings_problems(entity):
            yield Finding(entity, f"properties.{what}", ("properties", name))


def _names_webhdfs(endpoint: str) -> bool:
    return urlsplit(endpoint).scheme.lower() in WEBHDFS_FILE_SYSTEMS - {"hdfs"}
