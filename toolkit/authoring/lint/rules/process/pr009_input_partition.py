"""PR009: an input's `partition` filter is for file feeds only, and has no more parts than the feed's partitions.

Why:
A partition filter selects folders below the feed's declared `partitions` (its parts separated by '/'): a part
without a partition, or a filter on a catalog table, selects nothing.

Anti-pattern: the feed clicks declares `partitions: [country]`.

    inputs: [{name: clicks, feed: clicks, start: "now(0,0)", end: "now(0,0)", partition: "us/west"}]

Best practice:

    inputs: [{name: clicks, feed: clicks, start: "now(0,0)", end: "now(0,0)", partition: us}]
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.process._support import table_on
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process


@register
class InputPartition(EntityRule[Process]):
    code = "PR009"
    summary = "An input partition is on a file feed and has no more parts than the feed's partitions."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        for index, item in enumerate(entity.inputs):
            feed = ctx.repo.feeds.get(item.feed)
            if item.partition is None or feed is None:
                continue
            field, path = f"inputs[{index}].partition {item.partition!r}", ("inputs", index, "partition")
            table = table_on(entity, feed)
            if table is not None:
                yield Finding(
                    entity,
                    f"{field} filters feed '{feed.name}', a catalog table on cluster '{table[0]}' ({table[1]}); "
                    "a partition filter applies to file feeds only: remove it, and select partitions in the "
                    "table URI or in the workflow.",
                    path,
                )
                continue
            parts = item.partition.split("/")
            declared = len(feed.partitions)
            if len(parts) > declared:
                if declared:
                    names = ", ".join(feed.partitions)
                    valid = (f"give at most {declared} part{'s' if declared > 1 else ''} separated by '/', one "
                             f"per partition ({names}), e.g. {'/'.join('*' for _ in feed.partitions)}.")
                else:
                    valid = "remove the filter, or declare the feed's `partitions`."
                yield Finding(
                    entity,
                    f"{field} has {len(parts)} part{'s' if len(parts) > 1 else ''} but feed '{feed.name}' declares "
                    f"{declared or 'no'} partition{'s' if declared != 1 else ''}; {valid}",
                    path,
                )
