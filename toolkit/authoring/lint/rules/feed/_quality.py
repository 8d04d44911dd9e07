"""What the data-quality rules share (FD032 and FD033 on a feed's gate, PR024 and PR025 on a process output's): a
gate's suite, read once per lint run (`LintContext.suite`), and the columns its expectations name that the feed does
not declare.

Columns are matched ignoring case, as Great Expectations finds a column in a Spark DataFrame and as Spark resolves
it (FD027 compares declarations the same way). A feed that declares no columns, or that is a catalog table on one
of its clusters, is not checked: a table's columns are the table's, which the linter does not read.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rules.feed._common import is_table_feed
from toolkit.core.entities.model import Feed, Quality
from toolkit.core.entities.quality_suites import SuiteError


def suite_error(ctx: LintContext, gate: Quality, field: str) -> str | None:
    """The message for a gate whose suite is missing or is no suite (`field` names the `suite` value); None when it
    parses."""
    parsed = ctx.suite(gate.suite)
    return f"{field}: {parsed}" if isinstance(parsed, SuiteError) else None


def unknown_columns(ctx: LintContext, gate: Quality, feed: Feed, field: str) -> Iterator[str]:
    """A message for each column that an expectation of the gate's suite names and `feed` does not declare; none when
    the feed's columns are not known here or the suite does not parse (the suite rule reports that)."""
    suite = ctx.suite(gate.suite)
    if not feed.columns or is_table_feed(feed) or isinstance(suite, SuiteError):
        return
    declared = {column.name.casefold() for column in feed.columns}
    names = ", ".join(column.name for column in feed.columns)
    for index, expectation in enumerate(suite.expectations, 1):
        for column in expectation.columns:
            if column.casefold() not in declared:
                yield (f"{field} {gate.suite}: expectation {index} ({expectation.type}) names the column '{column}', "
                       f"which feed '{feed.name}' does not declare (its columns: {names}): correct the column in the "
                       "suite, or declare it in the feed's columns.")
