"""CL002: interface endpoints are URIs with a scheme, so paths and clients resolve unambiguously."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolkit.entities.kinds import Kind
from toolkit.entities.model import Cluster
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register

URI_WITH_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://\S*$")


@register
class InterfaceUris(EntityRule):
    code = "CL002"
    summary = "Every interface endpoint (registry and messaging too) is a URI with a scheme."
    kind = Kind.CLUSTER

    def check_entity(self, entity: Cluster, ctx: LintContext) -> Iterator[Finding]:
        for name, interface in entity.interfaces.items():
            if not URI_WITH_SCHEME.match(interface.endpoint):
                yield Finding(
                    entity,
                    f"interfaces.{name}.endpoint {interface.endpoint!r} is not a URI with a scheme; "
                    "write it as scheme://host:port, e.g. hdfs://namenode:8020 or thrift://metastore:9083.",
                    ("interfaces", name, "endpoint"),
                )
