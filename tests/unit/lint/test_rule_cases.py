"""Every rule tested by small pass and fail cases kept as data (cases/<CODE>.yaml, see `overlay`): each case
is the template repo with a few edits, and lists every problem the linter must report (code, file, line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.lint.overlay import CASES, TEMPLATE, case_repo, cases_of
from toolkit.authoring.lint.runner import all_rules, lint_paths

CODES = sorted(rule.code for rule in all_rules())
ALL_CASES = [(path.stem, case["name"]) for path in sorted(CASES.glob("*.yaml")) for case in cases_of(path.stem)]


def test_template_lints_clean() -> None:
    report = lint_paths([TEMPLATE])
    assert [str(p) for p in report.problems] == []
    assert report.files >= 7


@pytest.mark.parametrize("code", CODES)
def test_every_rule_has_a_pass_and_a_fail_case(code: str) -> None:
    assert (CASES / f"{code}.yaml").is_file(), f"no cases for {code} in {CASES}"
    cases = cases_of(code)
    reported = [any(finding[0] == code for finding in case["findings"]) for case in cases]
    assert reported[0], "the first case fails with the rule (other tests use it as the rule's fixture)"
    assert not all(reported), f"{code} has no case that passes"
    names = [case["name"] for case in cases]
    assert len(set(names)) == len(names), "case names are unique"


def test_no_cases_of_an_unknown_code() -> None:
    assert sorted(path.stem for path in CASES.glob("*.yaml")) == CODES


@pytest.mark.parametrize(("code", "name"), ALL_CASES)
def test_case(code: str, name: str, tmp_path: Path) -> None:
    root = case_repo(code, name, tmp_path / "repo")
    (case,) = [case for case in cases_of(code) if case["name"] == name]
    problems = lint_paths([root]).problems
    found = [[p.code, p.file.resolve().relative_to(root.resolve()).as_posix(), p.line] for p in problems]
    assert found == case["findings"], "\n".join(str(p) for p in problems)
