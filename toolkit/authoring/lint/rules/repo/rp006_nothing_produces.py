"""RP006: a feed read by processes is written by something on that cluster.

Why:
A feed read on a cluster where no process outputs it, it is not replicated to or imported on, and which is not
declared its `source` (written from outside) is never written there: its readers wait forever. A warning: the
data may be put there by hand.

Anti-pattern: a process on backup reads visits.

    clusters:
      - {name: primary, type: source}

Best practice:

    clusters:
      - {name: primary, type: source}
      - {name: backup, type: source}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import Finding, Rule, register
from toolkit.core.entities.model import FeedClusterType
from toolkit.core.entities.problems import Severity


@register
class NothingProduces(Rule):
    code = "RP006"
    summary = ("A feed read by processes is written by something: a process, replication, an import, or an outside "
               "source.")
    severity = Severity.WARNING

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        if not ctx.processes_complete:  # a process that fails to load may be the reader or writer
            return
        for feed in ctx.repo.feeds.values():
            readers = ctx.readers.get(feed.name, ())
            if not readers:
                continue
            writers = ctx.writers.get(feed.name, ())
            for index, cluster in enumerate(feed.clusters):
                if cluster.type in (FeedClusterType.SOURCE, FeedClusterType.TARGET) or cluster.import_ is not None:
                    continue
                if any(writer.cluster(cluster.name) for writer in writers):
                    continue
                reading = [reader.name for reader in readers if reader.cluster(cluster.name)]
                if reading:
                    yield Finding(feed, f"read on cluster '{cluster.name}' by {', '.join(reading)}, but nothing "
                                  "writes it there: no process outputs it on that cluster and it is not replicated "
                                  "to it; declare `type: source` on that cluster if an outside system writes it.",
                                  ("clusters", index, "name"))
