"""FD013: a feed is stored the same way on all its clusters: all in files, or all in catalog tables.

Why:
Replication copies files to files and tables to tables: a feed in files on one cluster and in a table on another
cannot be replicated between them.

Anti-pattern:

    locations: {data: "/data/clicks/${YEAR}/${MONTH}/${DAY}"}
    clusters:
      - name: primary
      - name: backup
        table: {uri: "catalog:web:clicks#ds=${YEAR}-${MONTH}-${DAY}"}

Best practice:

    locations: {data: "/data/clicks/${YEAR}/${MONTH}/${DAY}"}
    clusters:
      - name: primary
      - name: backup
        locations: {data: "/replica/clicks/${YEAR}/${MONTH}/${DAY}"}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import FILES, TABLE, storages
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed

WORDS = {FILES: "in files", TABLE: "in a catalog table"}
FIELDS = {FILES: "locations.data", TABLE: "table.uri"}


@register
class UniformStorage(EntityRule[Feed]):
    code = "FD013"
    summary = "The feed's storage is of one type on all its clusters: all files or all catalog tables."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        first: tuple[int, str, str] | None = None  # index, name, kind of the first cluster with a storage
        for index, cluster, storage in storages(entity):
            if storage.kind is None:
                continue  # FD002
            if first is None:
                first = (index, cluster.name, storage.kind)
                continue
            if storage.kind == first[2]:
                continue
            if storage.own:
                path = storage.path(*FIELDS[storage.kind].split("."))
                how = f"its own {FIELDS[storage.kind]}"
            else:
                path = ("clusters", index, "name")
                how = f"the feed's {FIELDS[storage.kind]}"
            yield Finding(
                entity,
                f"clusters[{index}] '{cluster.name}' stores the feed {WORDS[storage.kind]} ({how}), but "
                f"clusters[{first[0]}] '{first[1]}' stores it {WORDS[first[2]]}; replication copies files to files "
                "and tables to tables: store the feed the same way on every cluster.",
                path,
            )
