"""FD036: all feeds that share a group name date their data path (or table URI) with the same variables.

Why:
A group is available when all its feeds are, instance by instance: its feeds must name an instance by the same
date fields. Falcon compares each feed's date pattern (the date variables of its own data path or table URI,
sorted, a repeated one counted each time; separators and folders do not count) with the group's and refuses a
feed whose pattern differs. The group's first feed, in file order, sets the pattern (the frequency is FD020's);
like FD020, the findings are reported even when the linter was given only the changed files.

Anti-pattern: feeds/clicks.yaml and feeds/orders.yaml.

    - {name: clicks, groups: [web], locations: {data: "/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"}}
    - {name: orders, groups: [web], locations: {data: "/data/orders/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}"}}

Best practice: the same variables, whatever the folders.

    - {name: clicks, groups: [web], locations: {data: "/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"}}
    - {name: orders, groups: [web], locations: {data: "/data/orders/${YEAR}-${MONTH}-${DAY}/${HOUR}"}}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import Finding, Rule, register
from toolkit.authoring.lint.rules.feed._common import VARIABLE, catalog, display_file, unknown_variables
from toolkit.core.el.templates import DATE_VARIABLES
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed

_ORDER = list(DATE_VARIABLES)  # YEAR, MONTH, DAY, HOUR, MINUTE


def date_pattern(feed: Feed) -> tuple[str, ...] | None:
    """The date variables of the feed's own data path (else its table URI, whose open keys such as
    `region=${region}` do not count), in calendar order, repeats kept; None when it has neither, or one that is
    invalid (FD008, FD015 report those)."""
    text = feed.locations.get("data")
    if text is not None:
        if unknown_variables(text):
            return None
    elif feed.table is None or isinstance(catalog(feed.table), Exception):
        return None
    else:
        text = feed.table
    names = [name for name in VARIABLE.findall(text) if name in DATE_VARIABLES]
    return tuple(sorted(names, key=_ORDER.index))


def _shown(pattern: tuple[str, ...]) -> str:
    return ", ".join(f"${{{name}}}" for name in pattern) if pattern else "no date variable"


@register
class GroupDatePattern(Rule):
    code = "FD036"
    summary = ("Feeds that share a group date their data path (or table URI) with the same variables as the "
               "group's first feed (in file order).")
    reports_outside_selection = True

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        first: dict[str, tuple[Feed, tuple[str, ...]]] = {}
        for feed in ctx.entities_of(Kind.FEED):
            assert isinstance(feed, Feed)
            pattern = date_pattern(feed)
            if pattern is None:
                continue
            for index, group in enumerate(feed.groups):
                leader, theirs = first.setdefault(group, (feed, pattern))
                if leader is feed or theirs == pattern:
                    continue
                where = "table URI" if "data" not in feed.locations else "data path"
                yield Finding(
                    feed,
                    f"groups[{index}] '{group}': the feed's {where} is dated by {_shown(pattern)}, but the group's "
                    f"first feed '{leader.name}' ({display_file(leader.source_file, ctx)}) is dated by "
                    f"{_shown(theirs)}; the feeds of a group name an instance by the same date variables (Falcon "
                    f"refuses the feed): date it by {_shown(theirs)}, or leave the group.",
                    ("groups", index),
                )
