"""Entry of the `toolkit` command: wires the verb groups and turns errors into exit codes.

A ToolkitError prints its one sentence on stderr and exits with its code (docs/exit-codes.md); usage errors of
the command line itself (unknown option, missing argument) exit 2, typer's convention and ours.
Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import sys

import typer

from toolkit.cli.commands import control, convert, deps, el, events, instances, ledger, lint, queue, rerun, schema
from toolkit.errors import ToolkitError

app = typer.Typer(
    name="toolkit",
    help="Feed and process lifecycle for Spark data platforms, without a server (Apache Falcon's ideas).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(el.app, name="el")
app.command("instances")(instances.instances_command)
app.command("lint")(lint.lint_command)
app.command("schema")(schema.schema_command)
app.command("deps")(deps.deps_command)
app.command("convert-falcon")(convert.convert_falcon_command)
app.command("status")(ledger.status_command)
app.command("summary")(ledger.summary_command)
app.command("running")(ledger.running_command)
app.command("suspend")(control.suspend_command)
app.command("resume")(control.resume_command)
app.command("safemode")(control.safemode_command)
app.command("rerun")(rerun.rerun_command)
app.command("publish")(events.publish_command)
app.command("events")(events.events_command)
app.command("queue")(queue.queue_command)


def main(argv: list[str] | None = None) -> int:
    """Run the command line with `argv` (default: sys.argv[1:]) and return the exit code."""
    try:
        app(args=argv, prog_name="toolkit")
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
