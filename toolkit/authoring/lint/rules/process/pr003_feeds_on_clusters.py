"""PR003: every input and output feed is defined on every cluster the process runs on.

Why:
An instance of the process on a cluster reads and writes the feeds there: a feed not on that cluster has no
path or table to read or write. Feeds and clusters that do not exist at all are left to RP004.

Anti-pattern: the feed clicks is on primary only.

    clusters: [{name: primary}, {name: backup}]
    inputs: [{name: clicks, feed: clicks, start: now(0,0), end: now(0,0)}]

Best practice: add backup to the feed's clusters, or run the process on primary only.

    clusters: [{name: primary}]
    inputs: [{name: clicks, feed: clicks, start: now(0,0), end: now(0,0)}]
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process


@register
class FeedsOnProcessClusters(EntityRule[Process]):
    code = "PR003"
    summary = "Each input and output feed is defined on every cluster of the process."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        clusters = [c.name for c in entity.clusters if c.name in ctx.repo.clusters]
        clusters = list(dict.fromkeys(clusters))
        for field, items in (("inputs", entity.inputs), ("outputs", entity.outputs)):
            for index, item in enumerate(items):
                feed = ctx.repo.feeds.get(item.feed)
                if feed is None:
                    continue
                for cluster in clusters:
                    if feed.cluster(cluster) is None:
                        yield Finding(
                            entity,
                            f"{field}[{index}].feed '{feed.name}' is not defined on cluster '{cluster}', where "
                            f"the process runs (the feed's clusters: {', '.join(feed.cluster_names)}); add "
                            f"cluster '{cluster}' to feed '{feed.name}' or remove it from the process's clusters.",
                            (field, index, "feed"),
                        )
