"""FD042: an import's extract and merge policy are a pair the import knows: `full` with `snapshot`, `incremental`
with `append`.

Why:
A full extract reads the whole table, so its instance is a snapshot of it; an incremental extract reads only the
rows past the high-water mark, so its instance holds the rows added since the previous one (append). A full
extract that appends would copy the whole table into every instance on top of the ones before; an incremental
one kept as a snapshot would need the previous instance merged in by a key the import does not have. Falcon
accepts only full with snapshot; the toolkit adds incremental with append.

Anti-pattern:

    import:
      source: {name: sales-db, tableName: orders, extract: {type: full, mergepolicy: append}}

Best practice:

    import:
      source: {name: sales-db, tableName: orders, extract: {type: incremental, mergepolicy: append}}
      arguments: {check-column: order_id}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import ExtractType, Feed, MergePolicy

PAIRS = {ExtractType.FULL: MergePolicy.SNAPSHOT, ExtractType.INCREMENTAL: MergePolicy.APPEND}


@register
class ExtractMergePair(EntityRule[Feed]):
    code = "FD042"
    summary = "An import's extract and merge policy are full with snapshot, or incremental with append."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for index, cluster in enumerate(entity.clusters):
            policy = cluster.import_
            if policy is None:
                continue
            extract = policy.source.extract
            wanted = PAIRS[extract.type]
            if extract.merge_policy is wanted:
                continue
            holds = ("the whole table (snapshot)" if wanted is MergePolicy.SNAPSHOT
                     else "the rows added since the one before (append)")
            yield Finding(
                entity,
                f"the import on cluster '{cluster.name}' extracts {extract.type.value} but merges by "
                f"{extract.merge_policy.value}; a {extract.type.value} extract's instance is {holds}: set "
                f"mergepolicy: {wanted.value}.",
                ("clusters", index, "import", "source", "extract", "mergepolicy"),
            )
