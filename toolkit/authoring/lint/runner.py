"""Find the rules, run them over the repos that the given paths belong to, and collect `Problem`s.

A path is a config repo (lint all of it) or files inside one (pre-commit passes the changed files):
the rules always see the whole repo, and report on the selected files, plus the findings of rules
that must reach the author wherever they stand (a reference to a deleted entity). A rule that crashes is
one finding (LT001, see `crashes`), and the other rules and entities are still checked.
"""

from __future__ import annotations

import gc
import importlib
import pkgutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from toolkit.authoring.lint import rules as rules_package
from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.crashes import INTERNAL_ERROR, findings_of
from toolkit.authoring.lint.rule import REGISTRY, Finding, Rule, current_code
from toolkit.core.entities.problems import Problem, Severity
from toolkit.core.entities.repo import ConfigRepo, entity_files, find_repo_root, is_config_repo
from toolkit.errors import UsageError


def all_rules() -> list[type[Rule]]:
    """Every registered rule, by code; importing each module of `toolkit.authoring.lint.rules` registers it."""
    for module in pkgutil.walk_packages(rules_package.__path__, rules_package.__name__ + "."):
        importlib.import_module(module.name)
    return [REGISTRY[code] for code in sorted(REGISTRY)]


@dataclass(frozen=True)
class LintReport:
    problems: tuple[Problem, ...]
    files: int

    def failed(self, strict: bool = False) -> bool:
        """True when a problem is an error, or any problem at all under `strict`."""
        return any(strict or problem.severity is Severity.ERROR for problem in self.problems)


def _problem(rule: type[Rule], finding: Finding) -> Problem:
    entity = finding.entity
    span = entity.document.key_span(finding.path) if finding.at_key else entity.span(finding.path)
    return Problem(
        file=span.file,
        line=span.line,
        column=span.column,
        code=rule.code,
        severity=finding.severity or rule.severity,
        message=f"{entity.kind.label} '{entity.name}': {finding.message}",
        entity=entity.ref,
    )


def lint_repo(root: Path, selection: set[Path] | None = None) -> LintReport:
    """Lint the repo at `root`. With `selection` (resolved file paths), report on those files, on the
    entities that depend on them (a changed feed can break an unchanged process), and the findings of
    rules that report across files."""
    repo, problems = ConfigRepo.scan(root)
    ctx = LintContext(repo)
    found = list(problems)
    for rule_class in all_rules():
        for finding in findings_of(rule_class, ctx):
            if isinstance(finding, Problem):  # a crash, or a finding in a file that did not load
                found.append(finding)
                continue
            if rule_class.code in _ignored(finding.entity.lint_ignore):
                continue
            found.append(_problem(rule_class, finding))
    if selection is None:
        return LintReport(tuple(sorted(set(found))), len(repo.files))
    affected = selection | _dependent_files(repo, selection)
    outside = {code for code, rule in REGISTRY.items() if rule.reports_outside_selection} | {INTERNAL_ERROR}
    found = [p for p in found if _resolved(p.file) in affected or p.code in outside]
    return LintReport(tuple(sorted(set(found))), len(selection))


def _ignored(codes: tuple[str, ...]) -> set[str]:
    """The rule codes an entity's `lint: {ignore}` names, a former code (an alias) as its rule's code now."""
    return {current_code(code) or code for code in codes}


def _dependent_files(repo: ConfigRepo, selection: set[Path]) -> set[Path]:
    """The files of every entity that depends, directly or not, on an entity of the selected files."""
    chosen = [entity.ref for entity in repo.entities if _resolved(entity.source_file) in selection]
    dependents = {ref for chosen_ref in chosen for ref in repo.transitive_dependents(chosen_ref)}
    return {_resolved(entity.source_file) for entity in repo.entities if entity.ref in dependents}


def _resolved(path: Path) -> Path:
    return path.resolve()


def lint_paths(paths: Sequence[Path]) -> LintReport:
    """Lint repos and files; a path that does not exist or is not in a config repo is a UsageError."""
    # The run builds many small objects and frees few: pausing the cyclic garbage collector saves a
    # fifth of the time of a large repo (what CPython tools such as mypy do too).
    gc.disable()
    try:
        return _lint_paths(paths)
    finally:
        gc.enable()


def _lint_paths(paths: Sequence[Path]) -> LintReport:
    whole: dict[Path, Path] = {}  # resolved root -> the root as given (problems show paths as given)
    selected: dict[Path, tuple[Path, set[Path]]] = {}
    for path in paths or [Path(".")]:
        if not path.exists():
            raise UsageError(f"No such file or directory: {path}; give a config repo or YAML files inside one.")
        if path.is_dir() and is_config_repo(path):
            whole.setdefault(_resolved(path), path)
            continue
        root = find_repo_root(path)
        if root is None:
            raise UsageError(
                f"{path} is not inside a config repo: a config repo is a folder with clusters/, feeds/, processes/, "
                "datasources/ or mirrors/."
            )
        members = {_resolved(f) for f in entity_files(root)}
        if path.is_dir():
            chosen = {f for f in members if _resolved(path) in f.parents}
        elif _resolved(path) in members:
            chosen = {_resolved(path)}
        else:
            raise UsageError(
                f"{path} is not an entity file of the config repo {root}: entities are the .yaml files of "
                "clusters/, feeds/, processes/, datasources/ and mirrors/."
            )
        selected.setdefault(_resolved(root), (root, set()))[1].update(chosen)
    reports = [lint_repo(root) for root in whole.values()]
    reports += [lint_repo(root, files) for key, (root, files) in selected.items() if key not in whole]
    problems = tuple(sorted({problem for report in reports for problem in report.problems}))
    return LintReport(problems, sum(report.files for report in reports))
