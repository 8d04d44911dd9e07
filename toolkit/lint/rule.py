"""The small framework every rule is written against: a `Rule` with a stable code, `Finding`s that
point into an entity's YAML, and the registry that the runner reads.

An entity rule subclasses `EntityRule` and implements `check_entity`; a rule that looks across the
repo subclasses `Rule` and implements `check`. Registering is the `@register` decorator.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import ClassVar

from toolkit.entities.document import FieldPath
from toolkit.entities.kinds import Kind
from toolkit.entities.model import Entity
from toolkit.entities.problems import Severity
from toolkit.lint.context import LintContext

CODE_PATTERN = re.compile(r"^(CL|FD|PR|RP)[0-9]{3}$")


@dataclass(frozen=True)
class Finding:
    """A problem in `entity` at the YAML value `path` (or its key, with `at_key`)."""

    entity: Entity
    message: str
    path: FieldPath = ()
    at_key: bool = False
    severity: Severity | None = None  # None: the rule's own severity


class Rule:
    """A check with a stable code and a one-line summary (shown by `toolkit lint --list-rules`)."""

    code: ClassVar[str]
    summary: ClassVar[str]
    severity: ClassVar[Severity] = Severity.ERROR
    # A rule whose findings must reach the author even when only other files were changed (a deleted
    # feed that is still used): reported whatever files the linter was given.
    reports_outside_selection: ClassVar[bool] = False

    def check(self, ctx: LintContext) -> Iterable[Finding]:
        raise NotImplementedError


class EntityRule(Rule):
    """A rule that looks at one entity of `kind` at a time."""

    kind: ClassVar[Kind]

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for entity in ctx.entities_of(self.kind):
            yield from self.check_entity(entity, ctx)

    def check_entity(self, entity: Entity, ctx: LintContext) -> Iterable[Finding]:
        raise NotImplementedError


REGISTRY: dict[str, type[Rule]] = {}


def register(cls: type[Rule]) -> type[Rule]:
    """Class decorator adding a rule to the registry; codes are unique and of the form CL001."""
    if not CODE_PATTERN.match(cls.code):
        raise ValueError(f"Rule code {cls.code!r} of {cls.__name__} is not of the form CL001, FD001, PR001, RP001")
    if cls.code in REGISTRY and REGISTRY[cls.code] is not cls:
        raise ValueError(f"Rule code {cls.code} is used by {REGISTRY[cls.code].__name__} and {cls.__name__}")
    REGISTRY[cls.code] = cls
    return cls
