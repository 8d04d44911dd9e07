"""RP008: every code in `lint: {ignore: [...]}` is a rule's code (or a rule's former code).

Why:
A typo silences nothing, while the author believes the rule is off. A warning.

Anti-pattern:

    lint:
      ignore: [RP07]

Best practice:

    lint:
      ignore: [RP007]
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import Finding, Rule, current_code, register
from toolkit.core.entities.problems import CODES, Severity


@register
class UnknownIgnoredCode(Rule):
    code = "RP008"
    summary = "Every code in `lint: {ignore: [...]}` is a rule's code."
    severity = Severity.WARNING

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for entity in ctx.repo.entities:
            for index, code in enumerate(entity.lint_ignore):
                if current_code(code) is None and code not in CODES:
                    yield Finding(entity, f"lint.ignore[{index}] {code!r} is not a rule code, so it silences nothing; "
                                  "`toolkit lint --list-rules` lists the codes.", ("lint", "ignore", index))
