"""A renamed rule keeps its former code as an alias, honoured by `lint: {ignore}`, by RP008, by --explain and
in docs/rules.md. No rule is renamed today, so the rule here is defined by the test."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.lint.overlay import fixture_repo
from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import ALIASES, REGISTRY, EntityRule, Finding, current_code, register
from toolkit.authoring.lint.rule_docs import markdown
from toolkit.authoring.lint.runner import all_rules, lint_paths
from toolkit.cli.main import main
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Entity

DOC = """RP900: a feed is not named clicks (a rule of this test).

Why:
The test needs a rule that reports on the template repo, under a code that was once another.

Anti-pattern:

    name: clicks

Best practice:

    name: page-clicks
"""


@pytest.fixture
def renamed() -> Iterator[type[EntityRule]]:
    """RP900, formerly RP899, registered for the test and removed after it."""
    all_rules()
    module = types.ModuleType("tests.unit.lint.renamed_rule", DOC)
    sys.modules[module.__name__] = module

    class NoClicks(EntityRule):
        code = "RP900"
        aliases = ("RP899",)
        summary = "A feed is not named clicks."
        kind = Kind.FEED

        def check_entity(self, entity: Entity, ctx: LintContext) -> Iterator[Finding]:
            if entity.name == "clicks":
                yield Finding(entity, "named clicks.", ("name",))

    NoClicks.__module__ = module.__name__
    register(NoClicks)
    try:
        yield NoClicks
    finally:
        del REGISTRY["RP900"], ALIASES["RP899"], sys.modules[module.__name__]


def _ignore(root: Path, codes: str) -> None:
    feed = root / "feeds" / "clicks.yaml"
    feed.write_text(feed.read_text() + f"lint:\n  ignore: [{codes}]\n")


def test_the_rule_reports_under_its_code(renamed: type[EntityRule], tmp_path: Path) -> None:
    report = lint_paths([fixture_repo("RP008", tmp_path / "conf")])
    assert [(p.code, p.file.name, p.line) for p in report.problems if p.code in ("RP900", "RP899")] == [
        ("RP900", "clicks.yaml", 3)]
    assert current_code("RP899") == "RP900" and current_code("RP900") == "RP900" and current_code("RP898") is None


@pytest.mark.parametrize("codes", ["RP899", "RP900"])
def test_the_former_code_and_the_new_one_both_silence_it(renamed: type[EntityRule], tmp_path: Path,
                                                          codes: str) -> None:
    root = fixture_repo("RP008", tmp_path / "conf")
    _ignore(root, codes)
    problems = lint_paths([root]).problems
    assert [(p.code, p.file.name) for p in problems if p.file.name == "clicks.yaml"] == []
    assert {p.code for p in problems} == {"RP008"}  # the fixture's own unknown code only


def test_rp008_reports_an_unknown_code_but_not_a_former_one(renamed: type[EntityRule], tmp_path: Path) -> None:
    root = fixture_repo("RP008", tmp_path / "conf")
    _ignore(root, "RP899, RP898")
    problems = [p for p in lint_paths([root]).problems if p.file.name == "clicks.yaml"]
    assert [(p.code, p.message) for p in problems] == [
        ("RP008", "Feed 'clicks': lint.ignore[1] 'RP898' is not a rule code, so it silences nothing; "
                  "`toolkit lint --list-rules` lists the codes.")]


def test_explain_the_former_code(renamed: type[EntityRule], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--explain", "RP899"]) == 0
    assert capsys.readouterr().out.startswith(
        "RP900 (error): A feed is not named clicks (a rule of this test). Formerly RP899.\n")


def test_docs_name_the_former_code(renamed: type[EntityRule]) -> None:
    assert ("## RP900\n\n**A feed is not named clicks (a rule of this test).**\n\nSeverity: error. Formerly: RP899 "
            "(still accepted in `lint: {ignore}` and --explain).") in markdown([renamed])


def test_an_alias_cannot_take_a_code_in_use(renamed: type[EntityRule]) -> None:
    clash = type("Clash", (EntityRule,), {"code": "RP901", "aliases": ("RP900",), "summary": "s", "kind": Kind.FEED})
    with pytest.raises(ValueError, match="Rule code RP900 is used by NoClicks and Clash"):
        register(clash)
    reuse = type("Reuse", (EntityRule,), {"code": "RP899", "summary": "s", "kind": Kind.FEED})
    with pytest.raises(ValueError, match="Rule code RP899 is used by NoClicks and Reuse"):
        register(reuse)
    assert "RP901" not in REGISTRY and "RP899" not in REGISTRY
