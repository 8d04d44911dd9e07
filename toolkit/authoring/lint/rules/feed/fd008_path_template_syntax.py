"""FD008: location templates use only the date variables, close every `${`, and have no `..` segment.

Why:
Only ${YEAR} ${MONTH} ${DAY} ${HOUR} ${MINUTE} are filled in when an instance's path is made: any other
variable, or an unclosed `${`, stays in the path literally; a `..` segment climbs out of the feed's folder into
another feed's, which retention would then delete.

Anti-pattern:

    locations:
      data: /data/clicks/${YEAR}/${MONTH}/${DATE}

Best practice:

    locations:
      data: /data/clicks/${YEAR}/${MONTH}/${DAY}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import (
    VARIABLE,
    VARIABLES_TEXT,
    suggest_variable,
    unknown_variables,
    where,
    written_locations,
)
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class PathTemplateSyntax(EntityRule[Feed]):
    code = "FD008"
    summary = "Location paths use only ${YEAR} ${MONTH} ${DAY} ${HOUR} ${MINUTE}, close every ${ and have no '..'."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for path, text in written_locations(entity):
            field = f"{where(path)} {text!r}"
            for name in unknown_variables(text):
                yield Finding(
                    entity,
                    f"{field} uses ${{{name}}}, which is not a path variable{suggest_variable(name)}; "
                    f"the variables are {VARIABLES_TEXT}.",
                    path,
                )
            if "${" in VARIABLE.sub("", text):
                yield Finding(
                    entity,
                    f"{field} has a '${{' without its closing '}}'; write variables as {VARIABLES_TEXT}.",
                    path,
                )
            if ".." in text.split("/"):
                yield Finding(
                    entity,
                    f"{field} has a '..' segment, which would leave the folder the path names; "
                    "write the path without '..', e.g. /data/<feed>/${YEAR}/${MONTH}/${DAY}.",
                    path,
                )
