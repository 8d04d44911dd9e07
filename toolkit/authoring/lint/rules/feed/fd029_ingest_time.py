"""FD029: the ingest `time` is `arrival` or a column holding the event time: of type string, timestamp or date.

Why:
Each record's instance (the partition it lands in) comes from its event time, read from the column `time` names,
or from its arrival (`arrival`, the default). A name that is no column, or a column of another type (a number
is not a time), would reject every record to the dead letters. A string is read as ISO 8601. A table feed without
`columns` is not checked: its columns are its table's.

Anti-pattern:

    columns:
      - {name: ts, type: bigint}
    ingest:
      landing: /landing/clicks
      format: json
      time: ts
      dead-letters: /landing/clicks-rejected

Best practice:

    columns:
      - {name: ts, type: timestamp}
    ingest:
      landing: /landing/clicks
      format: json
      time: ts
      dead-letters: /landing/clicks-rejected
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._ingest import columns_by_name
from toolkit.core.entities.column_types import parse_column_type
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed
from toolkit.errors import UsageError

TIME_TYPES = ("string", "timestamp", "date")


@register
class IngestTime(EntityRule[Feed]):
    code = "FD029"
    summary = "The ingest `time` is `arrival` or a column holding the event time: of type string, timestamp or date."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        ingest = entity.ingest
        if ingest is None or ingest.by_arrival or not entity.columns:
            return
        found = columns_by_name(entity).get(ingest.time.lower())
        if found is None:
            names = ", ".join(column.name for column in entity.columns)
            yield Finding(entity, f"ingest.time '{ingest.time}' is neither arrival nor a column of the feed: name "
                          f"the column holding each record's event time ({names}), or write arrival.",
                          ("ingest", "time"))
            return
        index, column = found
        try:
            type_ = parse_column_type(column.type)
        except UsageError:
            return  # FD027 reports the type
        if type_.name not in TIME_TYPES:
            yield Finding(entity, f"ingest.time '{ingest.time}' names columns[{index}] '{column.name}' of type "
                          f"{type_.sql}, but an event time is read from a string (ISO 8601), timestamp or date "
                          "column: change the column's type, or write arrival.", ("ingest", "time"))
