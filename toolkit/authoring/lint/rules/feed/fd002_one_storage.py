"""FD002: a feed is stored in exactly one way on each cluster: files or a catalog table.

Why:
Files (`locations` with a `data` path) or a catalog table (`table`), never both, never neither, after the
cluster's own storage replaces the feed's: the actions would not know which one to read, write or delete.

Anti-pattern:

    locations:
      data: /data/clicks/${YEAR}/${MONTH}/${DAY}
    table:
      uri: catalog:web:clicks#ds=${YEAR}-${MONTH}-${DAY}

Best practice:

    locations:
      data: /data/clicks/${YEAR}/${MONTH}/${DAY}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import storages, where
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed

HOW = "store it either in files (locations.data) or in a catalog table (table.uri)"


@register
class OneStorage(EntityRule[Feed]):
    code = "FD002"
    summary = "Exactly one storage per feed and per cluster (after overrides): locations with data, or table."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        if entity.locations and entity.table is not None:
            yield Finding(
                entity,
                f"table.uri {entity.table!r} is given beside locations ({', '.join(entity.locations)}); {HOW}, "
                "not both: remove one.",
                ("table", "uri"),
            )
        inheriting = []
        for index, cluster, storage in storages(entity):
            if not storage.own:
                inheriting.append((index, cluster.name))
            elif cluster.locations and cluster.table is not None:
                yield Finding(
                    entity,
                    f"clusters[{index}].table.uri {cluster.table!r} on cluster '{cluster.name}' is given beside its "
                    f"locations ({', '.join(cluster.locations)}); {HOW} on this cluster, not both: remove one.",
                    ("clusters", index, "table", "uri"),
                )
            elif cluster.table is None and storage.data is None:
                path = storage.path("locations")
                yield Finding(
                    entity,
                    f"{where(path)} of cluster '{cluster.name}' has no data path ({', '.join(cluster.locations)} "
                    "only); a cluster's locations replace the feed's, not merge with them: add data here, "
                    "e.g. the feed's data path.",
                    path,
                )
        if not inheriting or entity.table is not None:
            return
        if entity.locations and "data" not in entity.locations:
            names = ", ".join(f"'{name}'" for _, name in inheriting)
            yield Finding(
                entity,
                f"locations has no data path ({', '.join(entity.locations)} only), and the feed's clusters "
                f"{names} use the feed's storage; add locations.data, "
                f"e.g. /data/{entity.name}/${{YEAR}}/${{MONTH}}/${{DAY}}.",
                ("locations",),
            )
        elif not entity.locations:
            for index, name in inheriting:
                yield Finding(
                    entity,
                    f"clusters[{index}] '{name}' has no storage: neither it nor the feed has locations or table; "
                    f"{HOW}, at the feed's level or on this cluster.",
                    ("clusters", index, "name"),
                )
