"""`toolkit backfill`: a window of nominal times over processes and replications, run through the real
entrypoints in dependency order (toolkit/orchestration/backfill/). No Spark in this process: it reads the ledgers
without a JVM and starts spark-submit per instance."""

from __future__ import annotations

import json
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Annotated

import typer

from toolkit.core.el.timestamps import parse_timestamp
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import DEFAULT_LEASE_SECONDS
from toolkit.core.ledger.switches import require_no_safemode
from toolkit.errors import UsageError
from toolkit.orchestration.backfill.execution import BackfillRun
from toolkit.orchestration.backfill.graph import Node, build_graph
from toolkit.orchestration.backfill.launch import Launcher
from toolkit.orchestration.backfill.locks import backfill_locks
from toolkit.orchestration.backfill.plan import BackfillPlan, plan_backfill
from toolkit.orchestration.backfill.progress import StderrProgress
from toolkit.orchestration.backfill.selection import selected_steps
from toolkit.orchestration.backfill.standing import Ledgers
from toolkit.orchestration.backfill.steps import ProcessStep, at_once, step_cluster
from toolkit.services.runtime.entry_frame import MAX_SECONDS
from toolkit.services.runtime.submit import SUBMIT_ARGS_PROPERTY, runnable_spark_submit, submit_arguments
from toolkit.views.status.as_ran import SHORT, CheckedOut, RanAt, checked_out_instances

DEFAULT_LOG_DIR = Path(tempfile.gettempdir()) / "feed-toolkit-backfill"
MAX_PARALLEL = 64
MIN_LEASE = 3.0


def backfill_command(
    cluster: Annotated[str, typer.Option(
        "--cluster", help="The cluster the processes run on and the feeds are replicated from; file://, or hdfs:// "
                          "through WebHDFS (docs/hdfs.md).")],
    from_: Annotated[str, typer.Option("--from", help="The window's first nominal time, yyyy-MM-ddTHH:mmZ.")],
    to: Annotated[str, typer.Option("--to", help="The window's last nominal time (included).")],
    repo: Annotated[Path, typer.Option("--repo", help="The config repo (clusters/, feeds/, processes/).")] = Path("."),
    process: Annotated[list[str] | None, typer.Option(
        "--process", help="A process to backfill on --cluster (repeat the option for several).")] = None,
    feed: Annotated[list[str] | None, typer.Option(
        "--feed", help="A feed whose replications from --cluster into its target clusters to backfill "
                       "(repeat the option for several).")] = None,
    downstream_of: Annotated[str | None, typer.Option(
        "--downstream-of", metavar="FEED",
        help="Everything FEED's data on --cluster reaches: the processes that read it, the readers of their "
             "outputs in turn, and every replication of those feeds with what reads the copies.")] = None,
    parallel: Annotated[int, typer.Option(
        "--parallel", help=f"Instances run at once across the entities (1 to {MAX_PARALLEL}); a process never runs "
                           "more at once than its own `parallel`.")] = 1,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print the plan (per entity: the instances to run in the order numbered, the others and "
                          "why) and start nothing; no lock is taken.")] = False,
    format_: Annotated[str, typer.Option(
        "--format", help="text or json: the plan with --dry-run, else the summary line.")] = "text",
    spark_submit_path: Annotated[str | None, typer.Option(
        "--spark-submit", help="The spark-submit to run. Default: the one on PATH, else SPARK_HOME's, else "
                               "pyspark's.")] = None,
    submit_args: Annotated[str | None, typer.Option(
        "--submit-args", help=f"Arguments for spark-submit before the entrypoint, e.g. \"--master yarn\". Default: "
                              f"the property {SUBMIT_ARGS_PROPERTY} of the cluster each instance runs on.")] = None,
    log_dir: Annotated[Path, typer.Option(
        "--log-dir", help="Where each run's output goes, one file per run, with its status line beside it "
                          "(.status.json).")] = DEFAULT_LOG_DIR,
    lease: Annotated[float | None, typer.Option(
        "--lease", metavar="SECONDS",
        help="The lease of the backfill's locks and of its runs: after a kill -9, how long until the next call "
             f"takes them over; at least 3. Default: {DEFAULT_LEASE_SECONDS:.0f}.")] = None,
    as_ran: Annotated[bool, typer.Option(
        "--as-ran", help="Run each process instance that ran before with the definitions of the commit that first "
                         "ran it, read from git into a folder of its own (removed afterwards), as `toolkit rerun "
                         "--as-ran` does; instances that never ran, and replications, run with the current files. "
                         "An instance whose definition is in no commit, or a commit git no longer has, refuses the "
                         "backfill (exit 2) before anything starts.")] = False,
    no_cache: Annotated[bool, typer.Option(
        "--no-cache", envvar="FEED_TOOLKIT_NO_CACHE",
        help="Parse and check every entity file, without the parse cache of unchanged valid files.")] = False,
) -> None:
    """Run every instance from --from to --to of the processes and replications named, in dependency order: an
    instance starts only once the instances of the backfill it reads have succeeded (a consumer after its
    producers, a replication after its source instance), up to --parallel at once, each through its entrypoint
    (`spark-submit [submit args] entrypoints/process.py ... --time T --no-wait`, `replication.py --feed F
    --target C --from T --to T`) with the cluster's submit arguments.

    What the ledgers say decides what runs, so the same call again resumes: succeeded instances and instances
    replicated already are skipped (never one published twice), failed, killed and timed-out ones run again
    with their retry policy's attempts. Suspended entities and held instances are not run, nor what waits for them;
    an instance another caller runs is waited for. Safemode on a cluster refuses the backfill (exit 5). Quality
    gates, leases and the late-data check work as in every scheduled call.

    Progress goes to stderr (a bar on a terminal); stdout holds the summary line. Exit 0 when every instance
    succeeded (now or before), else the worst code of the runs (1 failed, 3 waiting for an input the backfill does
    not make, 5 blocked, 4 skipped), 1 when stopped by SIGTERM or Ctrl-C (its runs are stopped; call again to
    resume), 2 for a bad call, 5 when another backfill holds one of the entities (it is named).

    \b
    toolkit backfill --repo conf --cluster primary --downstream-of clicks \\
        --from 2026-11-01T00:00Z --to 2026-11-07T23:00Z --parallel 2 --dry-run
    toolkit backfill --repo conf --cluster primary --process hourly-clicks-summary --feed clicks \\
        --from 2026-11-01T00:00Z --to 2026-11-01T23:00Z
    """
    if format_ not in ("text", "json"):
        raise UsageError(f"Unknown --format {format_!r}: give text or json.")
    if not 1 <= parallel <= MAX_PARALLEL:
        raise UsageError(f"--parallel {parallel} is out of range: give 1 to {MAX_PARALLEL}.")
    if lease is not None and not (MIN_LEASE <= lease <= MAX_SECONDS):
        raise UsageError(f"--lease {lease:g} is no lease for a backfill: give from {MIN_LEASE:g} seconds (it is "
                         "renewed every third of it) to a year.")
    first, last = parse_timestamp(from_, "--from"), parse_timestamp(to, "--to")
    config = ConfigRepo.load(repo, cached=not no_cache)
    graph = build_graph(config, selected_steps(config, cluster, process or [], feed or [], downstream_of),
                        first, last)
    ledgers = Ledgers(config, DEFAULT_LEASE_SECONDS if lease is None else lease)
    clusters = [config.cluster(name) for name in dict.fromkeys(step_cluster(step) for step in graph.steps)]
    if dry_run:
        for on in clusters:
            safemode = ledgers.of(on.name).control.safemode()
            if safemode.on:
                typer.echo(f"backfill: cluster '{on.name}' is in safemode (since {safemode.since}): this backfill "
                           "would be refused (exit 5) until `toolkit safemode off`.", err=True)
        plan = plan_backfill(graph, ledgers, first, last)
        if format_ == "json":
            typer.echo(json.dumps(plan.to_json(parallel), indent=2))
        else:
            for line in plan.text_lines(parallel):
                typer.echo(line)
        return
    for on in clusters:
        require_no_safemode(ledgers.of(on.name).fs, on)
        submit_arguments(submit_args, on)  # each cluster's arguments parse, before any run starts
    program = runnable_spark_submit(spark_submit_path, log_dir)
    run_id = uuid.uuid4().hex[:12]
    progress = StderrProgress(sys.stderr)
    with backfill_locks(graph.steps, ledgers, run_id) as guard:
        plan = plan_backfill(graph, ledgers, first, last)  # under the locks: what an earlier backfill did is seen
        checked = _as_ran(plan, ledgers, repo, config) if as_ran else {}
        try:
            launcher = Launcher(config, str(repo.resolve()), program, submit_args, log_dir, run_id, lease,
                                {node: str(folder.repo) for node, folder in checked.items()})
            typer.echo(f"backfill: {len(plan.to_start())} of {len(graph.order)} instance(s) of {graph.entities} "
                       f"to run, {parallel} at a time (run {run_id}, logs in {log_dir})", err=True)
            limits = {step: limit for step in graph.steps if (limit := at_once(step, config)) is not None}
            report = BackfillRun(plan, ledgers, launcher.start, parallel, limits, guard, progress).run()
        finally:
            for folder in set(checked.values()):  # one per commit, shared by its instances
                folder.remove()
    progress.close()
    if format_ == "json":
        typer.echo(json.dumps(report.to_json()))
    else:
        typer.echo(report.summary())
    code = report.exit_code()
    if code:
        raise typer.Exit(code)


def _as_ran(plan: BackfillPlan, ledgers: Ledgers, repo: Path, config: ConfigRepo) -> dict[Node, CheckedOut]:
    """The repo at the commit that first ran each process instance to start that has an attempt, one folder per
    commit, each said on stderr; refused whole (exit 2, nothing left) when one cannot run as it ran."""
    checked: dict[Node, CheckedOut] = {}

    def tell(count: int, at: RanAt, folder: CheckedOut) -> None:
        typer.echo(f"toolkit backfill --as-ran: {count} instance(s) as they first ran, at commit "
                   f"{at.commit[:SHORT]} ({at.definition}); its config repo is written in {folder.repo}", err=True)

    try:
        for step in plan.graph.steps:
            if not isinstance(step, ProcessStep):
                continue
            ledger = ledgers.of(step.cluster)
            nodes = [n for n in plan.to_start() if n.step == step and ledger.attempts(step.process, n.time)]
            made = checked_out_instances(repo, ledger, step.process, config.cluster(step.cluster),
                                         [n.time for n in nodes], tell)
            checked.update({n: made[n.time] for n in nodes})
    except BaseException:
        for folder in set(checked.values()):
            folder.remove()
        raise
    current = len(plan.to_start()) - len(checked)
    if current:
        typer.echo(f"toolkit backfill --as-ran: {current} instance(s) that never ran, or replications, run with the "
                   "current files", err=True)
    return checked
