"""`toolkit call`: the small wrapper every generated crontab line runs (toolkit/orchestration/schedule/nominal.py). It
passes the entrypoint the nominal time the firing stands for, not "now", and skips the firings between instances when
cron fires more often than the cadence can be said."""

from __future__ import annotations

import json
import os
import shutil
from typing import Annotated

import typer

from toolkit.core.el.frequency import Frequency
from toolkit.core.el.shift import shift
from toolkit.core.el.timestamps import format_timestamp, parse_timestamp
from toolkit.core.el.timezones import resolve_zone
from toolkit.errors import UsageError
from toolkit.orchestration.schedule.cadence import Cadence
from toolkit.orchestration.schedule.nominal import check_given, instance_for_firing
from toolkit.services.runtime.times import nominal_time

SKIPPED_EXIT = 4


def call_command(
    command: Annotated[list[str], typer.Argument(
        help="The command to run, after `--`; the nominal time is appended as `<time option> T`.")],
    every: Annotated[str, typer.Option("--every", help="The cadence's frequency, e.g. hours(1), minutes(7).")],
    anchor: Annotated[str, typer.Option(
        "--from", help="An instant on the cadence (yyyy-MM-ddTHH:mmZ, UTC): the entity's validity start.")],
    timezone: Annotated[str, typer.Option("--timezone", help="The zone days and months are counted in.")] = "UTC",
    period: Annotated[int, typer.Option(
        "--period", min=1, help="Minutes between two firings of the cron line: a firing less than this after an "
                                "instance stands for it; one further from every instance is skipped (exit 4).")] = 1,
    time: Annotated[str | None, typer.Option(
        "--time", help="The nominal time the scheduler gives (Airflow's logical date, Oozie's nominal time): "
                       "run when it is an instance, else skip (exit 4). Default: the firing's own instance.")] = None,
    time_option: Annotated[str, typer.Option(
        "--time-option", help="The option that passes the time to the command.")] = "--time",
    lag: Annotated[int, typer.Option(
        "--lag", min=0, help="Pass the instance this many periods of --every before the one the firing stands for "
                             "(an export calls for the instance that has just ended).")] = 0,
    wait_first: Annotated[bool, typer.Option(
        "--wait-first", help="When COMMAND runs a process instance (entrypoints/process.py), wait here for its inputs, "
                             "with no JVM, as the process would wait in Spark (its timeout, `toolkit kill`, holds; "
                             "status WAITING while it waits), and start COMMAND once they are there; for an export "
                             "(entrypoints/export.py), wait here for its instance as the export would; for a "
                             "replication pull (entrypoints/replication.py), look at its source instances here: all "
                             "missing before the feed's timeout ends the call WAITING with its run record, as the "
                             "entrypoint would, and no JVM. The wait may "
                             "end the call itself: KILLED, TIMEDOUT or still WAITING (a --no-wait or --max-wait call, "
                             "an export's period spent), with the entrypoint's status line and exit code. Ignored for "
                             "other commands; a table feed is read from the cluster's metastore without a JVM where it "
                             "can be (docs/scheduling.md), else the entrypoint waits in Spark.")] = False,
) -> None:
    """Run COMMAND for the instance this firing stands for, with `--time T` appended; skip (exit 4, a JSON line
    saying why) when it stands for none. Otherwise the exit code is COMMAND's own: it replaces this process. With
    --wait-first, a process instance waits for its inputs here, before any JVM starts.

    \b
    5 * * * *  toolkit call --every 'hours(1)' --from 2026-01-01T00:05Z --period 60 --wait-first -- \\
                 spark-submit entrypoints/process.py --repo /srv/conf --process clicks-summary --cluster primary
    """
    resolve_zone(timezone)  # a bad zone is exit 2 before anything runs
    cadence = Cadence(Frequency.parse(every), parse_timestamp(anchor, "--from"), timezone)
    if not command:
        raise UsageError("Give the command to run after `--`, e.g. -- spark-submit entrypoints/process.py ...")
    if time is not None:
        instance = parse_timestamp(time, "--time")
        why = check_given(cadence, instance)
    else:
        found, why = instance_for_firing(cadence, nominal_time(None), period)
        instance = found if found is not None else nominal_time(None)
    if why:
        typer.echo(f"call: {why}.")
        typer.echo(json.dumps({"status": "SKIPPED", "action": "call", "command": os.path.basename(command[0]),
                               "time": format_timestamp(instance), "reason": why}))
        raise typer.Exit(SKIPPED_EXIT)
    if lag:
        instance = shift(instance, Frequency(cadence.frequency.unit, cadence.frequency.count * lag),
                         resolve_zone(timezone), -1)
    argv = [*command, time_option, format_timestamp(instance)]
    if wait_first:
        _require_runnable(argv[0])  # before the wait, not after hours of it
        ended = _wait_before_start(argv)
        if ended is not None:
            raise typer.Exit(ended)
    try:
        os.execvp(argv[0], argv)
    except OSError as err:
        raise _not_runnable(argv[0], err.strerror) from None


def _not_runnable(program: str, why: str | None) -> UsageError:
    return UsageError(f"Cannot run {program} ({why}): give the path of an executable in the generated schedule "
                      "(toolkit schedule --spark-submit / --toolkit).")


def _require_runnable(program: str) -> None:
    if shutil.which(program) is None:
        raise _not_runnable(program, "not found, or not executable")


def _wait_before_start(argv: list[str]) -> int | None:
    """The wait before the JVM of the entrypoint `argv` runs (a process instance for its inputs, an export for its
    instance), given the arguments after it: None to start it now, else the call's exit code (its status line
    printed). Other commands do not wait here."""
    for index, word in enumerate(argv):
        name, arguments = os.path.basename(word), argv[index + 1:]
        if name == "process.py":
            from toolkit.actions.process_runner.wait_before_spark import wait_for_data

            return wait_for_data(arguments)
        if name == "export.py":
            from toolkit.actions.database_export.wait_before_spark import wait_for_data as wait_for_instance

            return wait_for_instance(arguments)
        if name == "replication.py":
            from toolkit.actions.replication.wait_before_spark import wait_for_data as look_at_sources

            return look_at_sources(arguments)
    return None
