"""Running one rule so that its crash is a finding, not the end of the run: a bug in one rule must not stop
every pre-commit run of every repo (sqlfluff reports a rule's exception the same way).

An entity rule is run entity by entity, so a crash on one entity leaves the rule checking the others; a rule
over the whole repo that crashes is reported on the repo. The findings yielded before a crash are kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, Rule
from toolkit.core.entities.model import Entity
from toolkit.core.entities.problems import Problem, Severity

INTERNAL_ERROR = "LT001"
INTERNAL_ERROR_SUMMARY = ("A rule crashed on an entity (a bug of the toolkit, not of the repo); the other rules "
                          "and entities are still checked: please report it.")


def findings_of(rule_class: type[Rule], ctx: LintContext) -> Iterator[Finding | Problem]:
    """The rule's findings, and a Problem (INTERNAL_ERROR) for each crash."""
    try:
        rule = rule_class()
        if isinstance(rule, EntityRule) and type(rule).check is EntityRule.check:
            for entity in rule.entities(ctx):
                yield from _entity_findings(rule, entity, ctx)
            return
        yield from rule.check(ctx)
    except Exception as err:  # noqa: BLE001 - any bug of a rule becomes a finding
        yield crash_problem(rule_class, err, ctx.root, None)


def _entity_findings(rule: EntityRule, entity: Entity, ctx: LintContext) -> Iterator[Finding | Problem]:
    try:
        yield from rule.check_entity(entity, ctx)
    except Exception as err:  # noqa: BLE001 - any bug of a rule becomes a finding
        yield crash_problem(type(rule), err, ctx.root, entity)


def crash_problem(rule_class: type[Rule], err: Exception, root: Path, entity: Entity | None) -> Problem:
    """The finding for a crash: on the entity's file, or on the repo for a rule over the whole repo."""
    what = " ".join(f"{type(err).__name__}: {err}".split())
    if entity is None:
        message = f"internal error in rule {rule_class.code} (the whole repo): {what}; please report it."
        return Problem(root, 1, 1, INTERNAL_ERROR, Severity.ERROR, message)
    message = (f"{entity.kind.label} '{entity.name}': internal error in rule {rule_class.code}: {what}; "
               "please report it.")
    return Problem(entity.source_file, 1, 1, INTERNAL_ERROR, Severity.ERROR, message, entity.ref)
