"""FD028: ingest fills every column of a file feed from exactly one record field.

Why:
A file feed's records are written with its `columns`: a feed with `ingest` stored in files must declare them (a
table feed's columns are its table's). A delimited or regex record reaches the columns through `fields`, Hive's
DelimitedInputWriter mapping: each entry names a column or is `_` (dropped). An entry that names no column, or a
column named twice, cannot be written; a column that no entry names would be null in every record. A JSON record
fills the columns by name, so it has no `fields`.

Anti-pattern: `referrer` is filled by no field, and `ts` by two.

    columns:
      - {name: ts, type: string}
      - {name: page, type: string}
      - {name: referrer, type: string}
    ingest:
      landing: /landing/clicks
      format: delimited
      fields: [ts, ts, page]
      dead-letters: /landing/clicks-rejected

Best practice:

    columns:
      - {name: ts, type: string}
      - {name: page, type: string}
      - {name: referrer, type: string}
    ingest:
      landing: /landing/clicks
      format: delimited
      fields: [ts, _, page, referrer]
      dead-letters: /landing/clicks-rejected
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._ingest import columns_by_name, has_file_storage
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import DROPPED, Feed, IngestFormat


@register
class IngestFillsColumns(EntityRule[Feed]):
    code = "FD028"
    summary = "Ingest fills every column of a file feed from exactly one record field."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        ingest = entity.ingest
        if ingest is None:
            return
        if not entity.columns:
            if has_file_storage(entity):
                yield Finding(entity, "ingest is set on a feed stored in files, which has no columns: declare "
                              "columns, one {name, type} per column the records fill (Spark SQL types).",
                              ("ingest",), at_key=True)
            return
        if ingest.format is IngestFormat.JSON or not ingest.fields:
            return  # a JSON record fills columns by name; missing fields are FD026's
        columns = columns_by_name(entity)
        names = ", ".join(column.name for column in entity.columns)
        filled_by: dict[str, int] = {}
        for index, field in enumerate(ingest.fields):
            if field == DROPPED:
                continue
            key = field.lower()
            if key not in columns:
                yield Finding(entity, f"ingest.fields[{index}] '{field}' is no column of the feed: name one of "
                              f"its columns ({names}), or write _ to drop the field.", ("ingest", "fields", index))
            elif key in filled_by:
                yield Finding(entity, f"ingest.fields[{index}] '{field}' fills column '{columns[key][1].name}', "
                              f"which ingest.fields[{filled_by[key]}] fills already: a column takes one field; "
                              "write _ for the other.", ("ingest", "fields", index))
            else:
                filled_by[key] = index
        for key, (index, column) in columns.items():
            if key not in filled_by:
                yield Finding(entity, f"columns[{index}] '{column.name}' is filled by no entry of ingest.fields, so "
                              "it would be null in every record: add it to ingest.fields at its field's position, "
                              "or remove the column.", ("columns", index, "name"))
