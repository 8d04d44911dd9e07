"""FD035: the ingest properties of a streamed feed hold values the ingest run accepts.

Why:
`ingest.max-files-per-batch` is a whole number of at least 1; `ingest.max-bytes-per-batch`, `ingest.split-size`
and `ingest.max-line-size` are sizes of at least 1 byte (`1GB`, `134217728`); `ingest.ingested-retention` is a
frequency (`days(7)`). toolkit/core/entities/ingest_settings.py reads them for the ingest run, which stops with exit 2
on a bad value: every call of the feed's ingest would fail until the repo is fixed. Checked on feeds with an
`ingest` section, the only ones that read them.

Anti-pattern:

    properties:
      ingest.max-files-per-batch: "0"
      ingest.ingested-retention: 7d

Best practice:

    properties:
      ingest.max-files-per-batch: "500"
      ingest.ingested-retention: days(7)
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import property_findings
from toolkit.core.entities.ingest_settings import PARSERS
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class IngestProperties(EntityRule[Feed]):
    code = "FD035"
    summary = ("Ingest properties (ingest.max-files-per-batch, -max-bytes-per-batch, -split-size, -max-line-size, "
               "-ingested-retention) of a streamed feed have valid values.")
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        if entity.ingest is None:
            return
        yield from property_findings(entity, PARSERS)
