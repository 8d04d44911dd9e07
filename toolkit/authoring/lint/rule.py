"""The small framework every rule is written against: a `Rule` with a stable code, `Finding`s that
point into an entity's YAML, and the registry that the runner reads.

An entity rule subclasses `EntityRule` and implements `check_entity`; a rule that looks across the
repo subclasses `Rule` and implements `check`. Registering is the `@register` decorator. A rule whose
code changed keeps the old one in `aliases`: `lint: {ignore: [OLD]}` and `--explain OLD` still work.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar, cast

from toolkit.authoring.lint.context import LintContext
from toolkit.core.entities.document import FieldPath
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Entity
from toolkit.core.entities.problems import Problem, Severity

CODE_PATTERN = re.compile(r"^(CL|DS|FD|MR|PR|RP)[0-9]{3}$")
E = TypeVar("E", bound=Entity)


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
    # Former codes of this rule: still honoured wherever a code is given (ignore lists, --explain).
    aliases: ClassVar[tuple[str, ...]] = ()
    # A rule whose findings must reach the author even when only other files were changed (a deleted
    # feed that is still used): reported whatever files the linter was given.
    reports_outside_selection: ClassVar[bool] = False

    def check(self, ctx: LintContext) -> Iterable[Finding | Problem]:
        """Findings on entities; a Problem where no entity stands (a file whose schema failed, read as YAML)."""
        raise NotImplementedError


class EntityRule(Rule, Generic[E]):
    """A rule that looks at one entity of `kind` at a time, an `E` (`EntityRule[Feed]` with kind FEED)."""

    kind: ClassVar[Kind]

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for entity in self.entities(ctx):
            yield from self.check_entity(entity, ctx)

    def entities(self, ctx: LintContext) -> Iterator[E]:
        """The entities of `kind`, which are instances of the class E stands for."""
        for entity in ctx.entities_of(self.kind):
            yield cast(E, entity)

    def check_entity(self, entity: E, ctx: LintContext) -> Iterable[Finding]:
        raise NotImplementedError


REGISTRY: dict[str, type[Rule]] = {}
ALIASES: dict[str, str] = {}  # a former code -> the rule's code now


def register(cls: type[Rule]) -> type[Rule]:
    """Class decorator adding a rule to the registry; codes and aliases are unique and of the form CL001."""
    for code in (cls.code, *cls.aliases):
        if not CODE_PATTERN.match(code):
            raise ValueError(
                f"Rule code {code!r} of {cls.__name__} is not of the form CL001, DS001, FD001, PR001, RP001")
        owner = REGISTRY.get(code) or REGISTRY.get(ALIASES.get(code, ""))
        if owner is not None and owner is not cls:
            raise ValueError(f"Rule code {code} is used by {owner.__name__} and {cls.__name__}")
    REGISTRY[cls.code] = cls
    ALIASES.update(dict.fromkeys(cls.aliases, cls.code))
    return cls


def current_code(code: str) -> str | None:
    """The registered rule code that `code` is, or was before a rename; None when no rule has it."""
    if code in REGISTRY:
        return code
    return ALIASES.get(code)
