"""`toolkit plan`: what a change to the config repo will do to the data, before it is merged (docs/plan.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolkit.errors import UsageError
from toolkit.services.runtime.times import nominal_time
from toolkit.shown_text import shown

FORMATS = ("text", "json", "markdown", "github")


def plan_command(
    base: Annotated[str | None, typer.Option("--base", help=(
        "The git revision to compare with (a commit, branch or tag of the repo's git history), e.g. origin/main "
        "in a pull request's CI."))] = None,
    repo: Annotated[Path, typer.Option("--repo", help="The config repo (clusters/, feeds/, processes/).")] = Path("."),
    head: Annotated[str | None, typer.Option("--head", help=(
        "The git revision whose definitions are planned. Default: the working tree, as it is now."))] = None,
    base_repo: Annotated[Path | None, typer.Option("--base-repo", help=(
        "A folder holding the base definitions instead of --base (another checkout)."))] = None,
    cluster: Annotated[str | None, typer.Option("--cluster", help="Only the changes to this cluster's data.")] = None,
    now: Annotated[str | None, typer.Option("--now", help=(
        "The time the next retention call is judged at, yyyy-MM-ddTHH:mmZ (UTC). Default: the wall clock, to the "
        "minute."))] = None,
    format_: Annotated[str, typer.Option("--format", help=(
        "text (people), json (programs: the versioned contract of docs/plan.md), markdown (a pull request's "
        "comment) or github (GitHub Actions annotations on the changed files, then the text)."))] = "text",
    limit: Annotated[int, typer.Option("--limit", min=0, help=(
        "The instances listed per change in the JSON form (all are counted)."))] = 10_000,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too (data left unmanaged).")] = False,
    offline: Annotated[bool, typer.Option("--offline", help=(
        "Compare the definitions alone, reading no storage or ledger (the pre-commit hook `toolkit-plan`): every "
        "change is listed by field, none is judged."))] = False,
) -> None:
    """Compare the repo's definitions with those of a git revision, entity by entity, and say what each change
    will do to the data on its clusters, read from their storage without a JVM (file:// roots, HDFS through
    WebHDFS) with retention's own planner, and from their ledgers: the instances the next retention call will
    delete or archive that the base definition keeps (a shorter limit, retention added), the data of a feed
    removed from the repo or from a cluster (orphaned), instances left under a data path that changed
    (unreachable); as warnings, the instances no longer evicted (retention removed), published instances a
    validity no longer covers and those it adds before now, a new replication target's backlog, and the
    published instances of a process whose workflow, inputs or outputs changed (with the command that lists
    their reruns). Every other edited field is listed. Nothing is changed: plan only reads.

    Exit 1 when a change loses data, 0 otherwise (--strict: warnings exit 1 too); 2 bad call, or a side of the
    comparison that does not load.

    \b
    toolkit plan --repo conf --base origin/main
    toolkit plan --repo conf --base HEAD~1 --cluster primary --format json
    """
    from toolkit.views.plan.planner import PlanCall, exit_code, plan_change
    from toolkit.views.plan.report import as_github, as_json, as_markdown, as_text

    if format_ not in FORMATS:
        raise UsageError(f"Unknown --format {format_!r}: use {', '.join(FORMATS[:-1])} or {FORMATS[-1]}.")
    plan = plan_change(PlanCall(repo, nominal_time(now, "--now"), base, head, base_repo, cluster, offline))
    forms = {"text": as_text, "markdown": as_markdown, "github": as_github}
    # Each line fit to show (toolkit/shown_text.py): a field's name or path from the repo cannot forge another line.
    typer.echo(as_json(plan, limit) if format_ == "json" else "\n".join(map(shown, forms[format_](plan))))
    raise typer.Exit(exit_code(plan.changes, strict))
