r"""FD026: the `ingest` options fit its record format: delimited needs `fields`, regex needs a `pattern` whose
groups match `fields`, json takes neither.

Why:
Each format reads a line its own way, as Hive streaming's record writers do. A delimited line is split on the
`delimiter` and its fields map onto columns through `fields`; a regex line is matched by `pattern`, one capture
group per entry of `fields`; a JSON record names its own fields, each filling the column of that name. An option of
another format would be ignored silently, and a pattern whose groups do not pair with `fields` would reject (or
misplace) every record. The pattern is compiled with Python's `re`, which reads the common subset of Java's
syntax (the one ingest runs) the same way; Java's named groups `(?<name>...)` are read as Python's. Java-only
constructs (`\p{Alpha}`, possessive quantifiers before Python 3.11) are reported: use their plain equivalents.

Anti-pattern: a regex ingest with three groups for two fields.

    ingest:
      landing: /landing/clicks
      format: regex
      pattern: '^(\S+) (\S+) (\S+)$'
      fields: [ts, page]
      dead-letters: /landing/clicks-rejected

Best practice: one group per field (`_` drops one).

    ingest:
      landing: /landing/clicks
      format: regex
      pattern: '^(\S+) (\S+) (\S+)$'
      fields: [ts, _, page]
      dead-letters: /landing/clicks-rejected
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._ingest import ingest_keys
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed, Ingest, IngestFormat

DELIMITED_ONLY = ("delimiter", "quote", "header")
JAVA_NAMED_GROUP = re.compile(r"\(\?<(?=[A-Za-z])")


@register
class IngestFormatOptions(EntityRule[Feed]):
    code = "FD026"
    summary = ("The `ingest` options fit its record format: delimited needs `fields`, regex needs a `pattern` "
               "whose groups match `fields`, json takes neither.")
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        ingest = entity.ingest
        if ingest is None:
            return
        given = ingest_keys(entity)
        name = ingest.format.value
        misplaced = [*DELIMITED_ONLY] if ingest.format is not IngestFormat.DELIMITED else []
        if ingest.format is IngestFormat.JSON:
            misplaced += ["fields", "pattern"]
        elif ingest.format is IngestFormat.DELIMITED:
            misplaced.append("pattern")
        for key in (key for key in misplaced if key in given):
            yield Finding(entity, f"ingest.{key} does not apply to ingest.format {name}{_how(ingest.format)}: "
                          f"remove ingest.{key}.", ("ingest", key), at_key=True)
        if ingest.format is IngestFormat.JSON:
            return
        if "fields" not in given:
            yield Finding(entity, f"ingest.format {name} needs ingest.fields, the record's fields in order, each a "
                          "column name or _ (dropped): add it, as fields: [ts, user, _, page].",
                          ("ingest", "format"))
        if ingest.format is IngestFormat.REGEX:
            yield from _pattern_problems(entity, ingest, "fields" in given)


def _how(format_: IngestFormat) -> str:
    """Why an option of another format means nothing to `format_`."""
    if format_ is IngestFormat.JSON:
        return " (a JSON record names its fields: each fills the column of its name)"
    if format_ is IngestFormat.REGEX:
        return " (ingest.pattern's groups split the line)"
    return " (a line is split on ingest.delimiter)"


def _pattern_problems(entity: Feed, ingest: Ingest, has_fields: bool) -> Iterator[Finding]:
    if ingest.pattern is None:
        yield Finding(entity, "ingest.format regex needs ingest.pattern, a regular expression matching a whole line "
                      "with one capture group per entry of ingest.fields: add it.", ("ingest", "format"))
        return
    try:
        groups = re.compile(JAVA_NAMED_GROUP.sub("(?P<", ingest.pattern)).groups
    except re.error as err:
        yield Finding(entity, f"ingest.pattern '{ingest.pattern}' is not a regular expression ({err}): fix it "
                      "(checked with Python's re, which reads the common subset of Java's syntax alike).",
                      ("ingest", "pattern"))
        return
    if has_fields and groups != len(ingest.fields):
        yield Finding(entity, f"ingest.pattern has {groups} capture group(s) but ingest.fields has "
                      f"{len(ingest.fields)} entries: give one group per field, in order (write (?:...) for a group "
                      "that captures nothing, and _ in fields for a group to drop).", ("ingest", "pattern"))
