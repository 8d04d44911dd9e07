"""CL003: a cluster has a staging location (where actions stage data before publishing it).

Why:
Actions write into the staging location and publish by an atomic rename from there: without it, they have no
place to prepare an instance where readers cannot see it half written.

Anti-pattern:

    locations:
      temp: /feed-toolkit/temp

Best practice:

    locations:
      staging: /feed-toolkit/staging
      temp: /feed-toolkit/temp
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Cluster


@register
class StagingLocation(EntityRule[Cluster]):
    code = "CL003"
    summary = "A cluster has a staging location."
    kind = Kind.CLUSTER

    def check_entity(self, entity: Cluster, ctx: LintContext) -> Iterator[Finding]:
        if not entity.location("staging"):
            yield Finding(entity, "locations has no staging path; add e.g. `staging: /feed-toolkit/staging`.",
                          ("locations",))
