"""CL004: the working location (the ledger lives there) is not the staging location (cleaned by actions).

Why:
The ledger (locks, run records) lives in the working location; actions clean the staging location, so a ledger
kept there would be deleted by the next clean-up.

Anti-pattern:

    locations:
      staging: /feed-toolkit/staging
      working: /feed-toolkit/staging

Best practice:

    locations:
      staging: /feed-toolkit/staging
      working: /feed-toolkit/working
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Cluster


@register
class WorkingNotStaging(EntityRule[Cluster]):
    code = "CL004"
    summary = "The working location, if given, differs from the staging location."
    kind = Kind.CLUSTER

    def check_entity(self, entity: Cluster, ctx: LintContext) -> Iterator[Finding]:
        working, staging = entity.location("working"), entity.location("staging")
        if working and staging and working.rstrip("/") == staging.rstrip("/"):
            yield Finding(entity, f"locations.working {working!r} is the staging path; give it a path of its own.",
                          ("locations", "working"))
