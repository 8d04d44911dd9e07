"""Each rule's documentation, read from its module's docstring: shown by `toolkit lint --explain CODE`
and generated into docs/rules.md (`make docs`), so the docs cannot drift from the rules.

A rule module's docstring has one format, as sqlfluff documents its rules:

    CODE: the one-line summary (may wrap; one paragraph).

    Why:
    what goes wrong without the rule (paragraphs).

    Anti-pattern: an optional caption,
    then YAML indented by four spaces that the rule reports.

    Best practice: an optional caption,
    then the YAML fixed, indented by four spaces.
"""

from __future__ import annotations

import inspect
import sys
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

from toolkit.authoring.lint.crashes import INTERNAL_ERROR, INTERNAL_ERROR_SUMMARY
from toolkit.authoring.lint.rule import Rule
from toolkit.authoring.lint.runner import all_rules
from toolkit.core.entities.problems import CODES, Severity

SECTIONS = ("Why:", "Anti-pattern:", "Best practice:")
GENERATED_BY = "make docs"


class RuleDocError(ValueError):
    """A rule module's docstring does not follow the format above."""


@dataclass(frozen=True)
class Example:
    caption: str  # prose around the YAML ("" when none)
    yaml: str


@dataclass(frozen=True)
class RuleDoc:
    code: str
    severity: Severity
    aliases: tuple[str, ...]
    summary: str
    why: str
    anti_pattern: Example
    best_practice: Example


def rule_doc(rule: type[Rule]) -> RuleDoc:
    """The documentation of `rule`, parsed from the docstring of the module defining it."""
    module = sys.modules[rule.__module__]
    text = inspect.cleandoc(module.__doc__ or "")
    parts = _sections(text, module.__name__)
    head = " ".join(parts[""].split())
    prefix = f"{rule.code}: "
    if not head.startswith(prefix):
        raise RuleDocError(f"The docstring of {module.__name__} must start with {prefix!r}, then the summary.")
    summary = head.removeprefix(prefix)
    return RuleDoc(
        code=rule.code,
        severity=rule.severity,
        aliases=rule.aliases,
        summary=summary[:1].upper() + summary[1:],
        why=parts["Why:"],
        anti_pattern=_example(parts["Anti-pattern:"], module.__name__, "Anti-pattern"),
        best_practice=_example(parts["Best practice:"], module.__name__, "Best practice"),
    )


def _sections(text: str, where: str) -> dict[str, str]:
    """The summary (key "") and the text under each header of SECTIONS (a line starting with it; the rest of
    that line belongs to the section), which must appear once each, in order."""
    parts: dict[str, list[str]] = {"": []}
    current = ""
    for line in text.splitlines():
        header = next((name for name in SECTIONS if line.startswith(name)), None)
        if header is not None:
            current = header
            parts[current] = []
            line = line.removeprefix(header).strip()
        parts[current].append(line)
    found = [key for key in parts if key]
    if found != list(SECTIONS):
        raise RuleDocError(f"The docstring of {where} must have the sections {', '.join(SECTIONS)} once each, "
                           f"in that order (it has {', '.join(found) or 'none'}).")
    sections = {key: "\n".join(value).strip("\n") for key, value in parts.items()}
    empty = [key or "the summary" for key, value in sections.items() if not value.strip()]
    if empty:
        raise RuleDocError(f"The docstring of {where} has nothing under {', '.join(empty)}.")
    return sections


def _example(section: str, where: str, name: str) -> Example:
    """The caption (unindented lines) and the YAML (indented lines) of an example section."""
    lines = section.splitlines()
    first = next((i for i, line in enumerate(lines) if line.startswith("    ")), None)
    if first is None:
        raise RuleDocError(f"The {name} of {where} has no YAML indented by four spaces.")
    last = max(i for i, line in enumerate(lines) if line.startswith("    "))
    code_lines = lines[first:last + 1]
    caption = " ".join(" ".join(lines[:first] + lines[last + 1:]).split())
    code = textwrap.dedent("\n".join(code_lines))
    try:
        yaml.safe_load(code)
    except yaml.YAMLError as error:
        raise RuleDocError(f"The {name} of {where} is not valid YAML: {error}") from error
    return Example(caption, code)


def explain_text(doc: RuleDoc) -> str:
    """The documentation as `toolkit lint --explain` prints it."""
    aliases = f" Formerly {', '.join(doc.aliases)}." if doc.aliases else ""
    lines = [f"{doc.code} ({doc.severity.value}): {doc.summary}{aliases}", "", doc.why, ""]
    for title, example in (("Anti-pattern", doc.anti_pattern), ("Best practice", doc.best_practice)):
        lines += [f"{title}:" + (f" {example.caption}" if example.caption else ""), ""]
        lines += [textwrap.indent(example.yaml, "    "), ""]
    return "\n".join(lines).rstrip() + "\n"


def markdown(rules: Iterable[type[Rule]]) -> str:
    """docs/rules.md: an index of every code, then each rule's documentation."""
    docs = [rule_doc(rule) for rule in rules]
    out = [
        "# Lint rules",
        "",
        f"Generated by `{GENERATED_BY}` from the docstrings of the rule modules (toolkit/authoring/lint/rules/); "
        "do not edit.",
        "`toolkit lint --explain CODE` prints one rule; `lint: {ignore: [CODE]}` in an entity file disables it there.",
        "",
        "| Code | Severity | Checks |",
        "|------|----------|--------|",
    ]
    out += [f"| [{d.code}](#{d.code.lower()}) | {d.severity.value} | {_cell(d.summary)} |" for d in docs]
    out += [
        "",
        "The loader's codes, reported before any rule runs:",
        "",
        "| Code | Severity | Checks |",
        "|------|----------|--------|",
    ]
    out += [f"| {code} | error | {_cell(summary)} |" for code, summary in sorted(CODES.items())]
    out += [f"| {INTERNAL_ERROR} | error | {_cell(INTERNAL_ERROR_SUMMARY)} |", ""]
    for doc in docs:
        out += [f"## {doc.code}", "", f"**{doc.summary}**", "", f"Severity: {doc.severity.value}."]
        if doc.aliases:
            out[-1] += f" Formerly: {', '.join(doc.aliases)} (still accepted in `lint: {{ignore}}` and --explain)."
        out += ["", doc.why, ""]
        for title, example in (("Anti-pattern", doc.anti_pattern), ("Best practice", doc.best_practice)):
            out += [f"**{title}**" + (f": {example.caption}" if example.caption else ""), ""]
            out += ["```yaml", example.yaml, "```", ""]
    return "\n".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def main(argv: list[str]) -> int:
    """`python -m toolkit.authoring.lint.rule_docs docs/rules.md`: write the rules' documentation there."""
    if len(argv) != 1:
        print("usage: python -m toolkit.authoring.lint.rule_docs OUTPUT.md", file=sys.stderr)
        return 2
    Path(argv[0]).write_text(markdown(all_rules()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
