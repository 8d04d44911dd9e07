"""PR019: Falcon's launcher properties of the process hold values YARN takes.

Why:
`queueName` is a YARN queue name, `jobPriority` one of Hadoop's job priorities or a whole number. The process
and its late-data checks run with them as spark.yarn.queue and spark.yarn.priority, and exit 2 on a value YARN
would refuse.

Anti-pattern:

    properties:
      queueName: root.etl.
      jobPriority: high

Best practice: Hadoop's names are upper case: VERY_HIGH, HIGH, NORMAL, LOW, VERY_LOW, DEFAULT; or a whole
number such as "7".

    properties:
      queueName: root.etl
      jobPriority: HIGH
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.checks import bad_launcher_properties
from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process


@register
class LauncherProperties(EntityRule[Process]):
    code = "PR019"
    summary = "The process's queueName is a YARN queue name and its jobPriority one of Hadoop's job priorities."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        return bad_launcher_properties(entity)
