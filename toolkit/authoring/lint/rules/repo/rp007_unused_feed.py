"""RP007: a feed is used: read or written by a process, replicated, imported or exported.

Why:
A feed that no process reads or writes, that is not replicated and that is not imported from or exported to a
datasource is dead weight: its definition suggests data
that nothing produces or uses. A warning.

Anti-pattern: no process names unused, and it has no target cluster.

    kind: feed
    name: unused
    clusters: [{name: primary, type: source}]

Best practice: delete feeds/unused.yaml, or read it in a process.

    inputs: [{name: unused, feed: unused, start: "now(0,0)", end: "now(0,0)"}]
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import Finding, Rule, register
from toolkit.core.entities.model import FeedClusterType
from toolkit.core.entities.problems import Severity


@register
class UnusedFeed(Rule):
    code = "RP007"
    summary = "A feed is used: read or written by a process, replicated, imported or exported."
    severity = Severity.WARNING

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        if not ctx.processes_complete:  # a process that fails to load may be the reader or writer
            return
        for feed in ctx.repo.feeds.values():
            if feed.name in ctx.readers or feed.name in ctx.writers:
                continue
            if any(cluster.type is FeedClusterType.TARGET or cluster.datasources for cluster in feed.clusters):
                continue
            yield Finding(feed, "no process reads or writes it and it is not replicated; delete it, or add the "
                          "process that uses it.", ("name",))
