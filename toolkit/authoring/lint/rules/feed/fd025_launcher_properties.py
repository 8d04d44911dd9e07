"""FD025: Falcon's launcher properties of the feed hold values YARN takes.

Why:
`queueName` is a YARN queue name, `jobPriority` one of Hadoop's job priorities or a whole number. Every action
of the feed (retention, replication, Hive export and import) runs with them as spark.yarn.queue and
spark.yarn.priority, and exits 2 on a value YARN would refuse.

Anti-pattern:

    properties:
      queueName: root..etl
      jobPriority: URGENT

Best practice: levels separated by single dots; VERY_HIGH, HIGH, NORMAL, LOW, VERY_LOW, DEFAULT or a whole
number such as "7".

    properties:
      queueName: root.etl
      jobPriority: VERY_HIGH
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.checks import bad_launcher_properties
from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class LauncherProperties(EntityRule[Feed]):
    code = "FD025"
    summary = "The feed's queueName is a YARN queue name and its jobPriority one of Hadoop's job priorities."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        return bad_launcher_properties(entity)
