"""`toolkit schedule`: the calls that keep a cluster's entities running, generated for the scheduler a team
already has (toolkit/orchestration/schedule/): a crontab, an Oozie bundle of coordinators, or Airflow DAG files."""

from __future__ import annotations

import importlib
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.orchestration.schedule import files
from toolkit.orchestration.schedule.calls import RetentionCalls, plan_calls
from toolkit.orchestration.schedule.crontab_install import install
from toolkit.orchestration.schedule.invocation import GivenPaths, Invocation
from toolkit.services.runtime.submit import SUBMIT_ARGS_PROPERTY


class Format(str, Enum):
    CRONTAB = "crontab"
    OOZIE = "oozie"
    AIRFLOW = "airflow"


def schedule_command(
    cluster: Annotated[str, typer.Option("--cluster", help="The cluster whose calls are generated.")],
    output_format: Annotated[Format, typer.Option(
        "--format", help="crontab (to standard output without --out), oozie (a bundle and its coordinators) or "
                         "airflow (one DAG file per call).")] = Format.CRONTAB,
    repo: Annotated[Path, typer.Option("--repo", help="The config repo (clusters/, feeds/, processes/).")] = Path("."),
    out: Annotated[Path | None, typer.Option(
        "--out", help="The folder of the generated files (needed for oozie and airflow). Files the repo no longer "
                      "implies are removed, only when they carry the generated mark.")] = None,
    check: Annotated[bool, typer.Option(
        "--check", help="Write nothing: exit 1 when the files in --out differ from what the repo now implies (CI, "
                        "the pre-commit hook), 0 when they are up to date.")] = False,
    repo_path: Annotated[str | None, typer.Option(
        "--repo-path", help="The config repo's path where the scheduler runs. Default: --repo's absolute "
                            "path.")] = None,
    toolkit_path: Annotated[str | None, typer.Option(
        "--toolkit", help="The toolkit command where the scheduler runs. Default: this one.")] = None,
    spark_submit_path: Annotated[str | None, typer.Option(
        "--spark-submit", help="spark-submit where the scheduler runs. Default: the one on PATH, else SPARK_HOME's, "
                               "else pyspark's.")] = None,
    entrypoints: Annotated[str | None, typer.Option(
        "--entrypoints", help="The folder of the entrypoints (process.py ...) where the scheduler runs. Default: "
                              "the one beside this toolkit.")] = None,
    submit_args: Annotated[str | None, typer.Option(
        "--submit-args", help=f"Arguments for spark-submit before an entrypoint, e.g. \"--master yarn\". Default: "
                              f"the cluster property {SUBMIT_ARGS_PROPERTY}, else none.")] = None,
    python: Annotated[str | None, typer.Option(
        "--python", help="The Python of the toolkit's installation where the scheduler runs, set as PYSPARK_PYTHON "
                         "and PYSPARK_DRIVER_PYTHON (a scheduler's bare environment has none). Default: the python "
                         "beside --toolkit when it is an absolute path, else this one.")] = None,
    jar: Annotated[str | None, typer.Option(
        "--jar", help="The toolkit's jar where the scheduler runs, put on spark-submit's --jars. Default: none; each "
                      "driver loads the jar of the installation it runs from.")] = None,
    log_dir: Annotated[str | None, typer.Option(
        "--log-dir", help="crontab: the folder of the calls' logs where the scheduler runs, one file per call, "
                          "each kept to 10 MiB and one older file. Default: /tmp/feed-toolkit-logs/<cluster>.")] = None,
    retention: Annotated[RetentionCalls, typer.Option(
        "--retention", help="per-feed: a retention call per feed at its own cadence; per-cluster: one call for the "
                            "whole cluster (retain --all) every hour, which retains each feed at its cadence's latest "
                            "instant not retained yet: one process an hour instead of one per feed and "
                            "instant.")] = RetentionCalls.PER_FEED,
    install_crontab: Annotated[bool, typer.Option(
        "--install-crontab", help="Merge the crontab into this user's crontab (`crontab -l`, then `crontab -`): "
                                  "the block between '# BEGIN feed-toolkit <cluster>' and '# END ...' is replaced, "
                                  "or added at the end; the user's own lines are kept.")] = False,
) -> None:
    """Generate the scheduler's calls for every entity on a cluster, with Falcon's cadences: each process
    instance (its frequency from its validity start, in its zone), late-data checks (the late-process delay),
    retention (every 6 hours for a limit under 24 hours, else daily; or the lifecycle's or the feed property
    retention.frequency), replication pulls (on the target, per source, the feed's frequency offset by the
    target's delay), database imports (each instance of the feed) and exports (each instance one period after it,
    once it has ended), the data-trigger sweep (every minute), ingest (hourly) and the SLA check (every 5 minutes).
    Regenerating is idempotent: unchanged files are not rewritten.

    Exit 0 written (or up to date with --check), 1 --check found a difference or a file this cluster's
    generation did not write stands where one goes (nothing written), 2 bad call or repo.

    \b
    toolkit schedule --repo conf --cluster primary                          # the crontab, on standard output
    toolkit schedule --repo conf --cluster primary --install-crontab        # merged into this user's crontab
    toolkit schedule --repo conf --cluster primary --retention per-cluster  # one retention call for all feeds
    toolkit schedule --repo conf --cluster primary --format airflow --out dags/
    toolkit schedule --repo conf --cluster primary --format oozie --out oozie/ --check
    """
    if install_crontab and (output_format is not Format.CRONTAB or out is not None or check):
        raise UsageError("--install-crontab installs the crontab format: give it without --format, --out and "
                         "--check.")
    if out is None and (check or output_format is not Format.CRONTAB):
        raise UsageError(f"--format {output_format.value}{' --check' if check else ''} needs --out DIR: the folder "
                         "of the generated files.")
    config = ConfigRepo.load(repo)
    on = config.cluster(cluster)
    plan = plan_calls(config, on.name, retention)  # first: it names the entity and field of a value it refuses
    invocation = Invocation.on_this_machine(repo, on, GivenPaths(
        repo_path=repo_path, toolkit=toolkit_path, spark_submit=spark_submit_path, entrypoints=entrypoints,
        submit_args=submit_args, python=python, jar=jar, log_dir=log_dir))
    renderer = importlib.import_module(f"toolkit.orchestration.schedule.formats.{output_format.value}")
    for sentence in plan.left_out:
        typer.echo(f"schedule: {sentence}", err=True)
    generated: dict[str, str] = renderer.render(plan, invocation)
    if install_crontab:
        typer.echo(f"schedule: {install(generated['crontab'], on.name)}", err=True)
        return
    if out is None:
        typer.echo(generated["crontab"], nl=False)
        return
    if check:
        found = files.differences(out, generated, files.cluster_mark(on.name))
        for line in found:
            typer.echo(line)
        typer.echo(f"schedule: {len(found)} difference(s) in {out}: regenerate with the same command without --check."
                   if found else f"schedule: {out} is up to date ({len(generated)} file(s)).")
        if found:
            raise typer.Exit(1)
        return
    report = files.write(out, generated, files.cluster_mark(on.name))
    for name in report.removed:
        typer.echo(f"removed (no longer generated): {out / name}")
    typer.echo(f"schedule: {len(report.written)} file(s) written, {len(report.unchanged)} unchanged, "
               f"{len(report.removed)} removed in {out} ({output_format.value}, cluster '{on.name}').")
