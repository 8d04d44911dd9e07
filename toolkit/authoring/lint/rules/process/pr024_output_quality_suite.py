"""PR024: each output's `quality.suite` is a file of the config repo in Great Expectations' suite format.

Why:
An output's own gate is checked after its feed's, before the instance is published. A suite that is missing, is
not JSON, or is not a suite (a `name` and a non-empty list of `expectations`, each with a `type` and its `kwargs`)
would fail every attempt of the process after its workflow ran: the linter reads it without Great Expectations, in
pre-commit. The path is relative to the repo's root and stays inside the repo.

Anti-pattern: a path that climbs out of the repo.

    outputs:
      - name: summary
        feed: clicks-hourly-summary
        instance: now(0,0)
        quality: {suite: ../shared/summary.json}

Best practice: the suite committed in the repo, in Great Expectations' JSON.

    outputs:
      - name: summary
        feed: clicks-hourly-summary
        instance: now(0,0)
        quality: {suite: quality/clicks-hourly-summary.json, on-failure: warn}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._quality import suite_error
from toolkit.authoring.lint.rules.process._support import where
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process


@register
class OutputQualitySuite(EntityRule[Process]):
    code = "PR024"
    summary = "Each output's `quality.suite` is a file of the config repo in Great Expectations' suite format."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        for index, output in enumerate(entity.outputs):
            if output.quality is None:
                continue
            path = ("outputs", index, "quality", "suite")
            message = suite_error(ctx, output.quality, where(path))
            if message is not None:
                yield Finding(entity, message, path)
