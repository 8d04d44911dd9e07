"""Entry of the `toolkit` command: wires the verb groups and turns errors into exit codes.

A ToolkitError prints its one sentence on stderr and exits with its code (docs/exit-codes.md); usage errors of
the command line itself (unknown option, missing argument) exit 2, typer's convention and ours.
Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import importlib
import sys

import typer

from toolkit.errors import ToolkitError

HELP = "Feed and process lifecycle for Spark data platforms, without a server (Apache Falcon's ideas)."
# Each command's module and function under toolkit/cli/commands/, in the order `toolkit --help` lists them. A call
# imports only its own command's module: `toolkit trigger` from cron every minute, `toolkit lint` from a
# pre-commit hook, start in a third less time than with every command loaded.
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("init", "init_command"),
    "el": ("el", "app"),  # a group of its own
    "instances": ("instances", "instances_command"),
    "lint": ("lint", "lint_command"),
    "schema": ("schema", "schema_command"),
    "deps": ("deps", "deps_command"),
    "graph": ("graph", "graph_command"),
    "convert-falcon": ("convert", "convert_falcon_command"),
    "status": ("ledger", "status_command"),
    "summary": ("ledger", "summary_command"),
    "running": ("ledger", "running_command"),
    "ledger-rollup": ("rollup", "rollup_command"),
    "suspend": ("control", "suspend_command"),
    "resume": ("control", "resume_command"),
    "safemode": ("control", "safemode_command"),
    "rerun": ("rerun", "rerun_command"),
    "publish": ("events", "publish_command"),
    "events": ("events", "events_command"),
    "trigger": ("trigger", "trigger_command"),
    "sla": ("sla", "sla_command"),
    "queue": ("queue", "queue_command"),
    "lineage": ("lineage", "app"),  # a group: `toolkit lineage --feed ...` answers in its callback
    "schedule": ("schedule", "schedule_command"),
    "call": ("call", "call_command"),
}


def build_app(argv: list[str]) -> typer.Typer:
    """The command line with the command `argv` names (every command when it names none: help, a typo)."""
    app = typer.Typer(name="toolkit", help=HELP, no_args_is_help=True, pretty_exceptions_enable=False,
                      add_completion=False)
    app.callback()(_root)  # a group even with one command registered: the command is called by its name
    named = argv[0] if argv and argv[0] in COMMANDS else None
    for name, (module, attribute) in COMMANDS.items():
        if named is None or name == named:
            target = getattr(importlib.import_module(f"toolkit.cli.commands.{module}"), attribute)
            if isinstance(target, typer.Typer):
                app.add_typer(target, name=name)
            else:
                app.command(name)(target)
    return app


def _root() -> None:
    pass


def main(argv: list[str] | None = None) -> int:
    """Run the command line with `argv` (default: sys.argv[1:]) and return the exit code."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    try:
        build_app(arguments)(args=arguments, prog_name="toolkit")
    except ToolkitError as err:
        typer.echo(f"toolkit: {err}", err=True)
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
