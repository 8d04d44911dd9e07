"""PR022: every input of a data-triggered process is published on its clusters.

Why:
A data-triggered run starts on dataset events, and on a cluster an input feed gets events only from a process
that outputs it there, from replication into it (`type: target`), or from outside producers through `toolkit
publish` (`type: source`). With none of these the process waits forever. A warning, as AIP-48 proposed for a
dataset with consumers and no producer: the producer may live in another config repo. (Optional inputs of a
process with a frequency do not hold a run back and are left out.)

Anti-pattern: visits is on primary with no type, and no process outputs it.

    trigger: data
    inputs: [{name: visits, feed: visits}]

Best practice: in feeds/visits.yaml, the outside loader publishes with `toolkit publish`.

    clusters:
      - {name: primary, type: source}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process
from toolkit.core.entities.problems import Severity


@register
class DataInputPublished(EntityRule[Process]):
    code = "PR022"
    summary = ("Every input of a data-triggered process is published on its clusters: by a process, replication "
               "or an outside source.")
    severity = Severity.WARNING
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        if not entity.is_data_triggered or not ctx.processes_complete:
            return
        for index, item in enumerate(entity.inputs):
            feed = ctx.repo.feeds.get(item.feed)
            if feed is None or (item.optional and not entity.is_batch_consumer):
                continue
            writers = ctx.writers.get(feed.name, ())
            for cluster in dict.fromkeys(c.name for c in entity.clusters):
                feed_cluster = feed.cluster(cluster)
                if feed_cluster is None or feed_cluster.type is not None:  # not there (PR003), or an outside source
                    continue
                if any(writer.cluster(cluster) is not None for writer in writers):
                    continue
                yield Finding(
                    entity,
                    f"inputs[{index}] reads feed '{feed.name}', which nothing publishes on cluster '{cluster}': no "
                    "process outputs it there and it is neither replicated to it nor written from outside, so this "
                    "data-triggered process would never start there; add its producer, or declare the feed's "
                    f"cluster '{cluster}' `type: source` (outside producers run `toolkit publish`) or "
                    "`type: target` (replicated into it).",
                    ("inputs", index, "feed"),
                )
