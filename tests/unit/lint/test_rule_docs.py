"""Every rule documented in one format (summary, why, a failing example, the fix), docs/rules.md generated
from it and up to date, and `toolkit lint --explain CODE` printing it."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest
import yaml

from toolkit.authoring.lint.rule import Rule
from toolkit.authoring.lint.rule_docs import RuleDocError, explain_text, markdown, rule_doc
from toolkit.authoring.lint.rule_docs import main as rule_docs_main
from toolkit.authoring.lint.runner import all_rules
from toolkit.cli.main import main

RULES_MD = Path(__file__).resolve().parents[3] / "docs" / "rules.md"
CODES = [rule.code for rule in all_rules()]


@pytest.mark.parametrize("code", CODES)
def test_every_rule_is_documented_in_the_format(code: str) -> None:
    (rule,) = [r for r in all_rules() if r.code == code]
    doc = rule_doc(rule)
    assert doc.summary and doc.summary[0].isupper() and "\n" not in doc.summary
    assert len(doc.why.split()) >= 8, "say why the rule matters"
    assert yaml.safe_load(doc.anti_pattern.yaml) is not None
    assert yaml.safe_load(doc.best_practice.yaml) is not None
    assert doc.anti_pattern.yaml != doc.best_practice.yaml


def test_docs_rules_md_is_generated_from_the_rules() -> None:
    assert RULES_MD.read_text(encoding="utf-8") == markdown(all_rules()), (
        "docs/rules.md is out of date with the rules' docstrings: run `make docs` and commit it.")


def test_docs_rules_md_has_every_rule_with_its_examples() -> None:
    text = RULES_MD.read_text(encoding="utf-8")
    for code in CODES:
        assert f"| [{code}](#{code.lower()}) |" in text
        assert f"\n## {code}\n" in text
    assert text.count("**Anti-pattern**") == len(CODES) == text.count("**Best practice**")
    assert "| YM002 | error | The file is not valid YAML" in text
    assert "```yaml\ninterfaces:\n  execute: {endpoint: \"localhost 8021\"}\n```" in text


def test_explain_prints_the_rules_documentation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--explain", "fd024"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("FD024 (error): The retention action is one the toolkit runs")
    assert ("Anti-pattern:\n\n    clusters:\n      - name: primary\n"
            "        retention: {limit: days(90), action: chmod}") in out
    assert "Best practice: or `action: archive`" in out
    assert "action: delete}" in out


def test_explain_a_loader_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--explain", "YM003"]) == 0
    assert capsys.readouterr().out.startswith("YM003 (error): A key appears twice in the same mapping")


def test_explain_an_unknown_code_exits_2_naming_similar_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--explain", "FD0244"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip() == "toolkit: No rule has the code 'FD0244'; similar codes: FD024, FD043, FD042, FD041, FD040."


def test_lint_help_mentions_explain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--explain" in out and "docs/rules.md" in out


def _rule_in_module(doc: str) -> type[Rule]:
    module = types.ModuleType("tests.unit.lint.documented_rule", doc)
    sys.modules[module.__name__] = module
    rule = type("Documented", (Rule,), {"code": "RP901", "summary": "s", "__module__": module.__name__})
    return rule


@pytest.mark.parametrize(("doc", "message"), [
    ("RP901: summary.\n\nWhy:\nbecause.\n\nAnti-pattern:\n\n    a: 1\n", "must have the sections"),
    ("RP901: summary.\n\nAnti-pattern:\n\n    a: 1\n\nWhy:\nbecause.\n\nBest practice:\n\n    a: 2\n",
     "in that order"),
    ("RP902: summary.\n\nWhy:\nbecause.\n\nAnti-pattern:\n\n    a: 1\n\nBest practice:\n\n    a: 2\n",
     "must start with 'RP901: '"),
    ("RP901: summary.\n\nWhy:\nbecause.\n\nAnti-pattern: no code here\n\nBest practice:\n\n    a: 2\n",
     "has no YAML indented by four spaces"),
    ("RP901: summary.\n\nWhy:\nbecause.\n\nAnti-pattern:\n\n    a: [1\n\nBest practice:\n\n    a: 2\n",
     "is not valid YAML"),
])
def test_a_docstring_out_of_format_is_named(doc: str, message: str) -> None:
    rule = _rule_in_module(doc)
    try:
        with pytest.raises(RuleDocError, match="tests.unit.lint.documented_rule") as error:
            rule_doc(rule)
        assert message in str(error.value)
    finally:
        del sys.modules[rule.__module__]


def test_the_explained_text_keeps_captions_and_yaml() -> None:
    rule = _rule_in_module("RP901: one line\nwrapped.\n\nWhy:\nbecause it matters.\n\nAnti-pattern: the caption\n"
                           "spans lines.\n\n    a: 1\n    b:\n      c: 2\n\nBest practice:\n\n    a: 2\n")
    try:
        assert explain_text(rule_doc(rule)) == (
            "RP901 (error): One line wrapped.\n\nbecause it matters.\n\nAnti-pattern: the caption spans lines.\n\n"
            "    a: 1\n    b:\n      c: 2\n\nBest practice:\n\n    a: 2\n")
    finally:
        del sys.modules[rule.__module__]


def test_make_docs_writes_the_generated_page(tmp_path: Path) -> None:
    target = tmp_path / "rules.md"
    assert rule_docs_main([str(target)]) == 0
    assert target.read_text(encoding="utf-8") == RULES_MD.read_text(encoding="utf-8")
