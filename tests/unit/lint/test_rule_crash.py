"""A rule that raises is one finding (LT001, the entity and its file, "internal error in rule X"), and every other
rule and entity is still checked: one bug of the toolkit never stops a pre-commit run (as sqlfluff does)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.lint.overlay import fixture_repo
from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.crashes import INTERNAL_ERROR
from toolkit.authoring.lint.rule import REGISTRY, EntityRule, Finding, Rule, register
from toolkit.authoring.lint.runner import lint_paths
from toolkit.cli.main import main
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Entity
from toolkit.core.entities.problems import Severity


class CrashesOnClicks(EntityRule):
    """Reports every feed, and raises on the feed 'clicks' after reporting it."""

    code = "FD990"
    summary = "A rule with a bug, for this test."
    severity = Severity.WARNING
    kind = Kind.FEED

    def check_entity(self, entity: Entity, ctx: LintContext) -> Iterator[Finding]:
        yield Finding(entity, "seen.")
        if entity.name == "clicks":
            raise KeyError("no such\nfield")


class CrashesOnTheRepo(Rule):
    code = "RP990"
    summary = "A repo rule with a bug, for this test."

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        raise ZeroDivisionError("division by zero")
        yield  # a generator, as repo rules are


@pytest.fixture
def crashing_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both rules registered through the rule API for this test only."""
    for rule in (CrashesOnClicks, CrashesOnTheRepo):
        monkeypatch.setitem(REGISTRY, rule.code, rule)
        register(rule)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return fixture_repo("RP004", tmp_path / "conf")  # hourly-clicks-summary reads the missing feed 'clickz'


@pytest.mark.usefixtures("crashing_rules")
def test_a_crashing_rule_is_a_finding_and_the_rest_goes_on(repo: Path) -> None:
    problems = lint_paths([repo]).problems
    crashes = [p for p in problems if p.code == INTERNAL_ERROR]
    assert [(p.file, p.line, p.column, p.severity, str(p.entity), p.message) for p in crashes] == [
        (repo, 1, 1, Severity.ERROR, "None",
         "internal error in rule RP990 (the whole repo): ZeroDivisionError: division by zero; please report it."),
        (repo / "feeds/clicks.yaml", 1, 1, Severity.ERROR, "feed/clicks",
         "Feed 'clicks': internal error in rule FD990: KeyError: 'no such\\nfield'; please report it."),
    ]
    # the crashing rule still checked every other feed, and the other rules ran
    seen = sorted(p.file.name for p in problems if p.code == "FD990")
    assert seen == ["clicks-daily-table.yaml", "clicks-daily.yaml", "clicks-hourly-summary.yaml", "clicks.yaml",
                    "page-view-counts.yaml", "page-views.yaml", "shop-orders.yaml", "top-pages.yaml", "visits.yaml"]
    assert [p.file.name for p in problems if p.code == "RP004"] == ["hourly-clicks-summary.yaml"]


@pytest.mark.usefixtures("crashing_rules")
def test_a_crash_reaches_pre_commit_whatever_files_it_was_given(repo: Path) -> None:
    problems = lint_paths([repo / "processes/daily-clicks-rollup.yaml"]).problems
    assert sorted(p.message.split(":")[0] for p in problems if p.code == INTERNAL_ERROR) == [
        "Feed 'clicks'", "internal error in rule RP990 (the whole repo)"]


@pytest.mark.usefixtures("crashing_rules")
def test_the_lint_command_exits_1_with_one_line_per_crash(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["lint", str(repo / "feeds/clicks.yaml")])
    out, err = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in out + err
    assert f"{repo}/feeds/clicks.yaml:1:1: {INTERNAL_ERROR} Feed 'clicks': internal error in rule FD990" in out
    assert f"{repo}:1:1: {INTERNAL_ERROR} internal error in rule RP990 (the whole repo)" in out
    main(["lint", "--list-rules"])
    assert f"{INTERNAL_ERROR}  error    " in capsys.readouterr().out
