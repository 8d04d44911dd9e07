"""`toolkit schedule`: the calls that keep a cluster's entities running, generated for the scheduler a team
already has (toolkit/schedule/): a crontab, an Oozie bundle of coordinators, or Airflow DAG files."""

from __future__ import annotations

import importlib
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from toolkit.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.runtime.submit import SUBMIT_ARGS_PROPERTY
from toolkit.schedule import files
from toolkit.schedule.calls import plan_calls
from toolkit.schedule.invocation import Invocation


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
) -> None:
    """Generate the scheduler's calls for every entity on a cluster, with Falcon's cadences: each process
    instance (its frequency from its validity start, in its zone), late-data checks (the late-process delay),
    retention (every 6 hours for a limit under 24 hours, else daily; or the lifecycle's or the feed property
    retention.frequency), replication pulls (on the target, per source, the feed's frequency offset by the
    target's delay), the data-trigger sweep (every minute), ingest (hourly) and the SLA check (every 5 minutes).
    Regenerating is idempotent: unchanged files are not rewritten.

    Exit 0 written (or up to date with --check), 1 --check found a difference or a file this cluster's
    generation did not write stands where one goes (nothing written), 2 bad call or repo.

    \b
    toolkit schedule --repo conf --cluster primary                          # the crontab, on standard output
    toolkit schedule --repo conf --cluster primary --format airflow --out dags/
    toolkit schedule --repo conf --cluster primary --format oozie --out oozie/ --check
    """
    if out is None and (check or output_format is not Format.CRONTAB):
        raise UsageError(f"--format {output_format.value}{' --check' if check else ''} needs --out DIR: the folder "
                         "of the generated files.")
    config = ConfigRepo.load(repo)
    on = config.cluster(cluster)
    invocation = Invocation.on_this_machine(repo, on, repo_path=repo_path, toolkit=toolkit_path,
                                            spark_submit_path=spark_submit_path, entrypoints=entrypoints,
                                            submit_args=submit_args)
    renderer = importlib.import_module(f"toolkit.schedule.formats.{output_format.value}")
    plan = plan_calls(config, on.name)
    for sentence in plan.left_out:
        typer.echo(f"schedule: {sentence}", err=True)
    generated: dict[str, str] = renderer.render(plan, invocation)
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
