"""FD031: the storage `format` is given only for a feed stored in files.

Why:
`format` (parquet, orc, json or csv) says how the toolkit writes a file feed's instances. A catalog table has a
storage format of its own, set when the table was created, which every write follows: a `format` on a table feed
would be ignored, and would mislead whoever reads the feed.

Anti-pattern:

    table:
      uri: catalog:web:visits#ds=${YEAR}-${MONTH}-${DAY}
    format: orc

Best practice: the table decides (`STORED AS ORC` where it is created).

    table:
      uri: catalog:web:visits#ds=${YEAR}-${MONTH}-${DAY}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import TABLE, storages
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class StorageFormatFilesOnly(EntityRule[Feed]):
    code = "FD031"
    summary = "The storage `format` is given only for a feed stored in files."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        if "format" not in entity.document.data:
            return
        tables = [cluster.name for _, cluster, storage in storages(entity) if storage.kind == TABLE]
        if tables:
            names = list(dict.fromkeys(tables))
            on = ("cluster " if len(names) == 1 else "clusters ") + " and ".join(f"'{name}'" for name in names)
            yield Finding(entity, f"format {entity.storage_format} is for feeds stored in files, but this feed is a "
                          f"catalog table on {on}, whose own storage format decides: remove format.",
                          ("format",))
