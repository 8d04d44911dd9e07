"""FD020: all feeds that share a group name have the same frequency.

Why:
A group is available when all its feeds are, instance by instance. The group's first feed, in file order, sets
the frequency; each feed whose frequency differs from it is reported. Changing the first feed's frequency puts
the findings on the other feeds' files: they are reported even when the linter was given only the changed files
(pre-commit), so the change cannot pass unnoticed.

Anti-pattern: feeds/clicks.yaml and feeds/visits.yaml.

    - {name: clicks, groups: [web], frequency: hours(1)}
    - {name: visits, groups: [web], frequency: days(1)}

Best practice:

    - {name: clicks, groups: [web], frequency: hours(1)}
    - {name: visits, groups: [web], frequency: hours(1)}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import Finding, Rule, register
from toolkit.authoring.lint.rules.feed._common import display_file
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class GroupFrequency(Rule):
    code = "FD020"
    summary = "Feeds that share a group have the same frequency as the group's first feed (in file order)."
    reports_outside_selection = True

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        first: dict[str, Feed] = {}
        for feed in ctx.entities_of(Kind.FEED):
            assert isinstance(feed, Feed)
            for index, group in enumerate(feed.groups):
                leader = first.setdefault(group, feed)
                if leader is feed or leader.frequency == feed.frequency:
                    continue
                yield Finding(
                    feed,
                    f"groups[{index}] '{group}': the feed's frequency is {feed.frequency}, but the group's first "
                    f"feed '{leader.name}' ({display_file(leader.source_file, ctx)}) has {leader.frequency}; "
                    f"the feeds of a group share one frequency: make it {leader.frequency}, or leave the group.",
                    ("groups", index),
                )
