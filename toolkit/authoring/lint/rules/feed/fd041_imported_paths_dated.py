"""FD041: a file feed imported from or exported to a database has a dated data path on that cluster.

Why:
An import writes one instance of the feed per nominal time, and an export reads one: each needs its own
folder, told apart by the date variables of the data path (`${YEAR}` ... `${MINUTE}`). A path without them
would be every instance at once (Falcon refuses such a feed: "Feed with Import/Export policy needs to have time
partition in the storage location path"). A table feed has its partitions instead.

Anti-pattern:

    locations:
      data: /data/customers

Best practice:

    locations:
      data: /data/customers/${YEAR}/${MONTH}/${DAY}/${HOUR}
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed

_DATE_VARIABLE = re.compile(r"\$\{(YEAR|MONTH|DAY|HOUR|MINUTE)\}")


@register
class ImportedPathsDated(EntityRule[Feed]):
    code = "FD041"
    summary = "A file feed imported from or exported to a database has a dated data path on that cluster."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for index, cluster in enumerate(entity.clusters):
            if not cluster.datasources or entity.table_on(cluster.name) is not None:
                continue
            data = entity.locations_on(cluster.name).get("data")
            if data is None or _DATE_VARIABLE.search(data):
                continue  # no data path at all is another rule's finding
            path = ("clusters", index, "locations", "data") if cluster.has_own_storage else ("locations", "data")
            yield Finding(entity, f"its data path {data!r} on cluster '{cluster.name}', where it is imported or "
                                  "exported, has no date variable, so every instance would be the same folder; add "
                                  "them to locations.data, e.g. ${YEAR}/${MONTH}/${DAY}/${HOUR}.", path)
