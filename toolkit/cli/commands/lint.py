"""`toolkit lint`: check a config repo (or files in one) the way Falcon checked entities at submission."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Annotated

import typer

from toolkit.authoring.lint.crashes import INTERNAL_ERROR, INTERNAL_ERROR_SUMMARY
from toolkit.authoring.lint.reporters import REPORTERS
from toolkit.authoring.lint.rule import ALIASES, REGISTRY, current_code
from toolkit.authoring.lint.rule_docs import explain_text, rule_doc
from toolkit.authoring.lint.runner import all_rules, lint_paths
from toolkit.core.entities.problems import CODES, Severity
from toolkit.errors import UsageError


def _list_rules() -> None:
    for code, summary in sorted(CODES.items()):
        typer.echo(f"{code}  error    {summary}")
    typer.echo(f"{INTERNAL_ERROR}  error    {INTERNAL_ERROR_SUMMARY}")
    for rule in all_rules():
        typer.echo(f"{rule.code}  {rule.severity.value:<7}  {rule.summary}")


def _explain(code: str) -> None:
    """Print the documentation of the rule `code` (or of a loader code); an unknown code is a UsageError."""
    all_rules()
    wanted = code.strip().upper()
    rule = current_code(wanted)
    if rule is not None:
        typer.echo(explain_text(rule_doc(REGISTRY[rule])), nl=False)
        return
    loader = {**CODES, INTERNAL_ERROR: INTERNAL_ERROR_SUMMARY}
    if wanted in loader:
        typer.echo(f"{wanted} (error): {loader[wanted]}")
        return
    known = sorted({*REGISTRY, *ALIASES, *loader})
    similar = difflib.get_close_matches(wanted, known, n=5, cutoff=0.6) or [c for c in known if c[:2] == wanted[:2]]
    hint = f"similar codes: {', '.join(similar)}" if similar else "`toolkit lint --list-rules` lists every code"
    raise UsageError(f"No rule has the code {code!r}; {hint}.")


def lint_command(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="A config repo (default: .) or YAML files inside one; cross-entity rules always see the whole repo.",
        show_default=False)] = None,
    format_: Annotated[str, typer.Option("--format", help="text, json or github (workflow annotations).")] = "text",
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail the run too.")] = False,
    list_rules: Annotated[bool, typer.Option("--list-rules", help="Print every rule code and what it checks.")] = False,
    explain: Annotated[str | None, typer.Option(
        "--explain", metavar="CODE",
        help="Print what rule CODE checks, why, an example it reports and the fix (as docs/rules.md).")] = None,
) -> None:
    """Check entities: schema, cross-entity references, EL windows, templates; every problem as
    path:line:col: CODE message.

    Exit 0 when clean (warnings allowed unless --strict), 1 when a rule fails, 2 when it cannot run.
    Disable a rule for one entity with `lint: {ignore: [CODE]}` in its file.
    `--explain CODE` prints what a rule checks, why, and an example (every rule: docs/rules.md).
    """
    if explain is not None:
        _explain(explain)
        return
    if list_rules:
        _list_rules()
        return
    if format_ not in REPORTERS:
        raise UsageError(f"Unknown --format {format_!r}: use {', '.join(REPORTERS)}.")
    report = lint_paths(paths or [Path(".")])
    output = REPORTERS[format_](report.problems)
    if output or format_ == "json":
        typer.echo(output)
    errors = sum(problem.severity is Severity.ERROR for problem in report.problems)
    warnings = len(report.problems) - errors
    if format_ == "text":
        typer.echo(f"{report.files} file(s) checked: {errors} error(s), {warnings} warning(s).", err=True)
    if report.failed(strict):
        raise typer.Exit(1)
