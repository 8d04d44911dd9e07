"""FD032: the feed's `quality.suite` is a file of the config repo in Great Expectations' suite format.

Why:
Every producer of the feed (a process, replication, ingest) validates each instance against the suite before it
publishes it. A suite that is missing, is not JSON, or is not a suite (a `name` and a non-empty list of
`expectations`, each with a `type` such as expect_column_values_to_not_be_null and its `kwargs`) would fail every
attempt at run time, after the data was written: the linter reads it without Great Expectations, in pre-commit.
The path is relative to the repo's root and stays inside the repo, so the suite is versioned with the feed.

Anti-pattern: no such file in the repo.

    quality:
      suite: quality/clicks.json

Best practice: the suite committed beside the feeds, in Great Expectations' JSON (`suite.to_json_dict()`).

    # quality/clicks.json: {"name": "clicks", "expectations": [
    #   {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "user"}}]}
    quality:
      suite: quality/clicks.json
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._quality import suite_error
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class QualitySuite(EntityRule[Feed]):
    code = "FD032"
    summary = "The feed's `quality.suite` is a file of the config repo in Great Expectations' suite format."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        if entity.quality is None:
            return
        message = suite_error(ctx, entity.quality, "quality.suite")
        if message is not None:
            yield Finding(entity, message, ("quality", "suite"))
