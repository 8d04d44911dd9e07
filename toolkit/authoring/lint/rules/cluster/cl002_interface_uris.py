"""CL002: interface endpoints have a form their clients understand, so paths and clients resolve unambiguously.

Why:
A file system, metastore or broker endpoint is a URI with a scheme. Falcon's own forms pass where Falcon used
them: `host:port` of the job tracker or resource manager for `execute`, `localoozie` for `workflow`, and a Spark
master (`yarn-client` included) for `spark` and `execute`.

Anti-pattern:

    interfaces:
      execute: {endpoint: "localhost 8021"}

Best practice:

    interfaces:
      execute: {endpoint: "localhost:8021"}
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.endpoints import LOCAL_OOZIE, is_host_port, is_spark_master, is_uri
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Cluster

_URI_ADVICE = "is not a URI with a scheme; write it as scheme://host:port, e.g. hdfs://namenode:8020 or " \
              "thrift://metastore:9083."
# Per interface type: does the endpoint have an accepted form, and what the finding says when it does not.
_FORMS: dict[str, tuple[Callable[[str], bool], str]] = {
    "execute": (lambda e: is_spark_master(e) or is_host_port(e),
                "is neither a URI with a scheme (spark://master:7077), a Spark master (yarn, local[*]) nor Falcon's "
                "host:port of a job tracker or resource manager (rm.example.com:8032); write one of those."),
    "workflow": (lambda e: is_uri(e) or e == LOCAL_OOZIE,
                 f"is neither a URI with a scheme (http://oozie:11000/oozie) nor Falcon's {LOCAL_OOZIE}; write one "
                 "of those."),
    "spark": (is_spark_master,
              "is not a Spark master; write a URI with a scheme (spark://master:7077, k8s://https://host:6443), yarn "
              "(Falcon's yarn-client and yarn-cluster too) or local[*]."),
}


@register
class InterfaceUris(EntityRule[Cluster]):
    code = "CL002"
    summary = ("Interface endpoints are URIs with a scheme; execute may be host:port or a Spark master, workflow "
               "localoozie, spark a Spark master.")
    kind = Kind.CLUSTER

    def check_entity(self, entity: Cluster, ctx: LintContext) -> Iterator[Finding]:
        for name, interface in entity.interfaces.items():
            accepted, advice = _FORMS.get(name, (is_uri, _URI_ADVICE))
            if not accepted(interface.endpoint):
                yield Finding(entity, f"interfaces.{name}.endpoint {interface.endpoint!r} {advice}",
                              ("interfaces", name, "endpoint"))
