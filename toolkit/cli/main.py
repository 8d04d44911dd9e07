"""Entry of the `toolkit` command: wires the verb groups and turns errors into exit codes.

A ToolkitError prints its one sentence on stderr, fit to show (toolkit/shown_text.py: a URL or setting it quotes
shows no password, a control character is an escape), and exits with its code (docs/exit-codes.md); usage errors of
the command line itself (unknown option, missing argument) exit 2, typer's convention and ours.
Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import sys
from typing import Annotated

import typer

import toolkit
from toolkit.errors import ToolkitError
from toolkit.shown_text import shown

DISTRIBUTION = "feed-toolkit"

HELP = "Feed and process lifecycle for Spark data platforms, without a server (Apache Falcon's ideas)."
# Each command's module and function under toolkit/cli/commands/ and its line in `toolkit --help`, in that order. A call
# imports only its own command's module: `toolkit trigger` from cron every minute, `toolkit lint` from a
# pre-commit hook, start in a third less time than with every command loaded.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "init": ("init", "init_command", "Write a new config repo that lints clean, with its next steps"),
    "el": ("el", "app", "The time engine: evaluate EL, list instances, resolve paths"),  # a group of its own
    "instances": ("instances", "instances_command", "The inputs and outputs of a process instance, or a feed's"),
    "lint": ("lint", "lint_command", "Check entities: schema, references, windows, templates"),
    "schema": ("schema", "schema_command", "Write or print the JSON Schemas of the entity kinds"),
    "deps": ("deps", "deps_command", "What an entity depends on, and what depends on it"),
    "graph": ("graph", "graph_command", "The repo as a graph: an HTML page, Graphviz dot or Mermaid"),
    "report": ("report", "report_command", "A cluster's status page: every feed's and process's instances, in HTML"),
    "convert-falcon": ("convert", "convert_falcon_command", "Convert Falcon XML definitions into YAML entities"),
    "status": ("ledger", "status_command", "A process's instances on a cluster, or the cluster's entities"),
    "entity-status": ("entity_status", "entity_status_command", "A process's or feed's state on each of its clusters"),
    "summary": ("ledger", "summary_command", "How many instances of a process are in each status"),
    "running": ("ledger", "running_command", "The instances running now"),
    "ledger-rollup": ("rollup", "rollup_command", "Roll up closed instances into one file per process and month"),
    "suspend": ("control", "suspend_command", "Suspend a process or a feed on a cluster, or hold single instances"),
    "resume": ("control", "resume_command", "Resume a suspended process or feed, or release held instances"),
    "safemode": ("control", "safemode_command", "Stop every action on a cluster before it touches data"),
    "rerun": ("rerun", "rerun_command", "The commands that rerun failed, timed-out or killed instances"),
    "backfill": ("backfill", "backfill_command", "Run a window of instances across processes and replications, in "
                                                  "dependency order"),
    "plan": ("plan", "plan_command", "What a change to the repo will do to the data, before it is merged"),
    "retain": ("retain", "retain_command", "Evict a file feed's (or, --all, every due feed's) expired instances"),
    "publish": ("events", "publish_command", "Record an outside producer's instance of a feed"),
    "events": ("events", "events_command", "The dataset events of a cluster"),
    "trigger": ("trigger", "trigger_command", "Start the data-triggered runs whose inputs are published"),
    "sla": ("sla", "sla_command", "The instances that missed or risk their SLA"),
    "metrics": ("metrics", "metrics_command", "Prometheus metrics of a cluster's feeds and processes, from its ledger"),
    "queue": ("queue", "queue_command", "A batch consumer's queue: pending events, batches"),
    "kill": ("kill", "kill_command", "End a running process instance: it publishes nothing, records KILLED"),
    "logs": ("logs", "logs_command", "What an attempt of a process instance wrote to stderr"),
    "triage": ("triage", "triage_command", "Why an instance is not done: up to the failed, waiting or missing"),
    "lineage": ("lineage", "app", "Which runs produced and read an instance"),  # a group: answers in its callback
    "schedule": ("schedule", "schedule_command", "Generate a crontab, Airflow DAGs or an Oozie bundle"),
    "call": ("call", "call_command", "Run an entrypoint with the instance a scheduler's firing stands for"),
    "jvm-archive": ("jvm_archive", "jvm_archive_command", "Make the class archive that cuts spark-submit's start-up"),
}


def build_app(argv: list[str]) -> typer.Typer:
    """The command line with the command `argv` names (every command when it names none: help, a typo)."""
    # No rich markup: a docstring's paragraphs are rewrapped to the terminal as written (rich mode kept their line
    # breaks, cutting sentences mid-line), and `\b` keeps an example block as it is.
    app = typer.Typer(name="toolkit", help=HELP, no_args_is_help=True, pretty_exceptions_enable=False,
                      add_completion=False, rich_markup_mode=None)
    app.callback()(_root)  # a group even with one command registered: the command is called by its name
    named = argv[0] if argv and argv[0] in COMMANDS else None
    for name, (module, attribute, line) in COMMANDS.items():
        if argv[:1] == ["--version"]:
            break  # answered by the root's option: no command module is imported
        if named is None or name == named:
            loaded = importlib.import_module(f"toolkit.cli.commands.{module}")
            target = getattr(loaded, attribute)
            if isinstance(target, typer.Typer):
                app.add_typer(target, name=name, short_help=line)
            else:  # a module's COMMAND_SETTINGS: typer.command's keyword arguments for its command
                app.command(name, short_help=line, **getattr(loaded, "COMMAND_SETTINGS", {}))(target)
    return app


def installed_version() -> str:
    """The version of the installed feed-toolkit distribution; the source tree's when it is not installed (run
    from a checkout with PYTHONPATH)."""
    from importlib import metadata  # 50 ms of import (email's parser) that only --version needs

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return toolkit.__version__


def _print_version(asked: bool) -> None:
    if asked:
        typer.echo(f"{DISTRIBUTION} {installed_version()}")
        raise typer.Exit(0)


def _root(
    version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_print_version,
        help="Print the installed feed-toolkit's version and exit.")] = False,
) -> None:
    pass


def main(argv: list[str] | None = None) -> int:
    """Run the command line with `argv` (default: sys.argv[1:]) and return the exit code. Output that cannot be
    written (stdout on a full disk) is one sentence and exit 1, found at the write or at the last flush."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    try:
        code = _commanded(arguments)
        sys.stdout.flush()
        return code
    except OSError as err:
        if err.errno not in _OUTPUT_ERRNOS:
            raise
        _stop_writing_stdout()
        where = "cannot write the command's output" if err.filename is None else str(err.filename)
        typer.echo(f"toolkit: {where}: {err.strerror or err}.", err=True)
        return 1


_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def _stop_writing_stdout() -> None:
    """What is left in stdout's buffer goes nowhere, so that the interpreter's last flush fails no more."""
    with contextlib.suppress(OSError, ValueError):  # no descriptor (a test's stream): nothing is flushed to it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _commanded(arguments: list[str]) -> int:
    try:
        build_app(arguments)(args=arguments, prog_name="toolkit")
    except ToolkitError as err:
        typer.echo(shown(f"toolkit: {err}"), err=True)
        return err.exit_code
    except OverflowError:
        typer.echo("toolkit: a time in this call lies outside the years 1 to 9999 (UTC or local): give times, "
                   "frequencies and validity ends that stay inside them.", err=True)
        return 2
    except SystemExit as stop:  # typer's standalone mode ends every run this way
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    return 0


def run() -> None:
    sys.exit(main())
