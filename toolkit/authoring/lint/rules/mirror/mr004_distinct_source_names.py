"""MR004: the source folders of an hdfs mirror have distinct last names.

Why:
Each source folder is copied into the target folder under its own last name (`/data/eu/sales` into
`<targetDir>/sales`): two sources with one last name would be copied into the same folder, each run overwriting the
other's files, and with `removeDeletedFiles` each deleting the other's.

Anti-pattern:

    sourceDir: [/data/eu/sales, /data/us/sales]
    targetDir: /backup

Best practice: one mirror per region, or sources named apart.

    sourceDir: [/data/eu-sales, /data/us-sales]
    targetDir: /backup
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.mirror_folders import copied_name, folder_problem
from toolkit.core.entities.model import HdfsMirrorSpec, Mirror
from toolkit.uris import normalize_uri


@register
class DistinctSourceNames(EntityRule[Mirror]):
    code = "MR004"
    summary = "The source folders of an hdfs mirror have distinct last names (each is copied under its own)."
    kind = Kind.MIRROR

    def check_entity(self, entity: Mirror, ctx: LintContext) -> Iterator[Finding]:
        if not isinstance(entity.spec, HdfsMirrorSpec):
            return
        first: dict[str, str] = {}
        for index, source in enumerate(entity.spec.source_dir):
            if folder_problem(source) is not None:
                continue
            name = copied_name(source)
            if name in first and normalize_uri(first[name]) == normalize_uri(source):
                yield Finding(entity, f"sourceDir[{index}] {source!r} is the folder {first[name]!r} again: list it "
                              "once.", ("sourceDir", index))
            elif name in first:
                yield Finding(entity, f"sourceDir[{index}] {source!r} has the last name {name!r} of "
                              f"{first[name]!r}: both would be copied into {entity.spec.target_dir.rstrip('/')}/{name} "
                              "and overwrite each other; mirror them apart (two mirrors, or folders named apart).",
                              ("sourceDir", index))
            first.setdefault(name, source)
