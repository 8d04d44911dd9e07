"""Every rule has a fixture repo (the template plus a change) that fails with exactly that rule's code,
at the line of a value in a file the fixture changed; and the template itself lints clean, warnings included."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.lint.overlay import FIXTURES, TEMPLATE, fixture_repo, overlaid_files
from toolkit.lint.rule import REGISTRY
from toolkit.lint.runner import all_rules, lint_paths

CODES = sorted(rule.code for rule in all_rules())


def test_template_lints_clean() -> None:
    report = lint_paths([TEMPLATE])
    assert [str(p) for p in report.problems] == []
    assert report.files >= 7


def test_every_rule_has_a_fixture() -> None:
    missing = [code for code in CODES if not (FIXTURES / code).is_dir()]
    assert missing == [], f"rules without a fixture folder under {FIXTURES}: {missing}"


@pytest.mark.parametrize("code", CODES)
def test_fixture_fails_with_exactly_its_rule(code: str, tmp_path: Path) -> None:
    if not (FIXTURES / code).is_dir():
        pytest.fail(f"no fixture for {code}")
    root = fixture_repo(code, tmp_path / "repo")
    report = lint_paths([root])
    codes = sorted({problem.code for problem in report.problems})
    assert codes == [code], "\n".join(str(p) for p in report.problems)
    changed = overlaid_files(code, root)
    in_changed = [problem.file.resolve() in changed for problem in report.problems]
    if REGISTRY[code].reports_outside_selection:  # a cycle is also reported on its unchanged members
        assert any(in_changed), report.problems
    else:
        assert all(in_changed), report.problems
    assert all(problem.line > 1 for problem in report.problems), "problems must point at the offending value"
