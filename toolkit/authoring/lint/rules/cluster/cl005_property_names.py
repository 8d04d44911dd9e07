"""CL005: property names are non-empty (duplicates are caught as duplicate YAML keys, YM003).

Why:
A property is looked up by its name (`${cluster.<property>}` in partition expressions, the actions' settings):
a property with an empty name can never be used and hides a typo.

Anti-pattern:

    properties:
      "": hive

Best practice:

    properties:
      metastore.owner: hive
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Cluster


@register
class PropertyNames(EntityRule[Cluster]):
    code = "CL005"
    summary = "Cluster property names are non-empty and unique."
    kind = Kind.CLUSTER

    def check_entity(self, entity: Cluster, ctx: LintContext) -> Iterator[Finding]:
        for name in entity.properties:
            if not name.strip():
                yield Finding(entity, f"properties has an empty name {name!r}; give every property a name.",
                              ("properties", name), at_key=True)
