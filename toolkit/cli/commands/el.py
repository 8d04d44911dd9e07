"""`toolkit el ...`: the time engine on the command line, for scripts and people."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import typer

from toolkit.cli import arguments
from toolkit.core.el.context import ELContext
from toolkit.core.el.expressions import parse_expression
from toolkit.core.el.frequency import Frequency
from toolkit.core.el.templates import PathTemplate
from toolkit.core.el.timestamps import format_timestamp
from toolkit.errors import UsageError
from toolkit.services.runtime.times import nominal_time

app = typer.Typer(
    help="The time engine: EL expressions, frequencies, instance grids and path templates.",
    no_args_is_help=True,
)

TimeOption = Annotated[str | None, typer.Option("--time", help=arguments.TIME_HELP)]
ZoneOption = Annotated[str, typer.Option("--timezone", help=arguments.ZONE_HELP)]
StartOption = Annotated[str, typer.Option("--start", help="First instance of the grid, yyyy-MM-ddTHH:mmZ.")]
FrequencyOption = Annotated[str, typer.Option("--frequency", help="minutes(n), hours(n), days(n) or months(n).")]
EndOption = Annotated[str | None, typer.Option("--end", help="Validity end (exclusive), yyyy-MM-ddTHH:mmZ.")]


def _print_time(value: object) -> None:
    """Times in UTC as yyyy-MM-ddTHH:mmZ; no instance as an empty line; text and numbers as they are."""
    if value is None:
        typer.echo("")
    elif hasattr(value, "tzinfo"):
        typer.echo(format_timestamp(value))  # type: ignore[arg-type]
    else:
        typer.echo(str(value))


@app.command("eval")
def eval_command(
    expression: Annotated[str, typer.Argument(help="EL expression, e.g. \"now(0,-60)\" or \"lastMonth(0,0,0)\".")],
    time: TimeOption = None,
    timezone: ZoneOption = "UTC",
    feed_frequency: Annotated[str | None, typer.Option(help="Snap the result to this feed's grid.")] = None,
    feed_start: Annotated[str | None, typer.Option(help="The feed's first instance (with --feed-frequency).")] = None,
    feed_end: Annotated[str | None, typer.Option(help="The feed's validity end (with --feed-frequency).")] = None,
    available: Annotated[str | None, typer.Option(
        help="Available instances T1,T2,... for latest(n) and future(n,limit).")] = None,
) -> None:
    """Evaluate an EL expression at a nominal time; with a feed, snap down to its instance grid.

    Prints the time as yyyy-MM-ddTHH:mmZ in UTC (the text for formatTime), and an empty line when the
    result is before the feed's first instance.
    """
    parsed = parse_expression(expression)
    feed_grid = None
    if feed_frequency is not None or feed_start is not None or feed_end is not None:
        if feed_frequency is None or feed_start is None:
            raise UsageError("--feed-frequency and --feed-start go together: give both to snap to a feed's grid.")
        feed_grid = arguments.grid(feed_start, feed_frequency, timezone, feed_end, prefix="--feed-")
    ctx = ELContext(nominal_time(time), arguments.zone(timezone), feed_grid,
                    arguments.time_list(available, "--available"))
    value = parsed.evaluate(ctx)
    if feed_grid is not None and value is not None:
        if not isinstance(value, datetime):
            raise UsageError(
                f"EL expression {expression!r} gives a {parsed.type}; only a time can be snapped to a feed."
            )
        value = feed_grid.at_or_before(value)
    _print_time(value)


@app.command("instances")
def instances_command(
    start: StartOption,
    frequency: FrequencyOption,
    from_: Annotated[str, typer.Option("--from", help="First time of the range, yyyy-MM-ddTHH:mmZ.")],
    to: Annotated[str, typer.Option("--to", help="Last time of the range (included), yyyy-MM-ddTHH:mmZ.")],
    timezone: ZoneOption = "UTC",
    end: EndOption = None,
) -> None:
    """Print the grid's instances in [--from, --to], one per line, oldest first."""
    grid = arguments.grid(start, frequency, timezone, end)
    first, last = nominal_time(from_, "--from"), nominal_time(to, "--to")
    if last < first:
        raise UsageError(f"--to {to} is before --from {from_}: give a range that runs forward.")
    for instance in grid.between(first, last):
        typer.echo(format_timestamp(instance))


@app.command("next")
def next_command(start: StartOption, frequency: FrequencyOption, time: TimeOption = None,
                 timezone: ZoneOption = "UTC", end: EndOption = None) -> None:
    """Print the instance at or after --time (an empty line when the grid has ended)."""
    _print_time(arguments.grid(start, frequency, timezone, end).at_or_after(nominal_time(time)))


@app.command("previous")
def previous_command(start: StartOption, frequency: FrequencyOption, time: TimeOption = None,
                     timezone: ZoneOption = "UTC", end: EndOption = None) -> None:
    """Print the instance at or before --time (an empty line when --time is before the start)."""
    _print_time(arguments.grid(start, frequency, timezone, end).at_or_before(nominal_time(time)))


@app.command("path")
def path_command(
    template: Annotated[str, typer.Argument(help="Path template, e.g. '/data/clicks/${YEAR}/${MONTH}/${DAY}'.")],
    time: TimeOption = None,
    timezone: ZoneOption = "UTC",
) -> None:
    """Print the path of the instance at --time, its variables rendered in --timezone."""
    typer.echo(PathTemplate(template).format(nominal_time(time), arguments.zone(timezone)))


@app.command("parse-path")
def parse_path_command(
    template: Annotated[str, typer.Argument(help="Path template, e.g. '/data/clicks/${YEAR}/${MONTH}/${DAY}'.")],
    path: Annotated[str, typer.Argument(help="A path to date.")],
    timezone: ZoneOption = "UTC",
) -> None:
    """Print the instance time of PATH; print nothing and exit 1 when PATH is not an instance of TEMPLATE."""
    parsed = PathTemplate(template)
    if not parsed.can_date_instances:
        raise UsageError(f"Template {template!r} has no ${{YEAR}}: its paths cannot be dated.")
    instance = parsed.parse(path, arguments.zone(timezone))
    if instance is None:
        raise typer.Exit(1)
    typer.echo(format_timestamp(instance))


@app.command("frequency")
def frequency_command(
    frequency: Annotated[str, typer.Argument(help="A frequency such as 'hours(1)'.")],
) -> None:
    """Print the frequency in canonical form; an invalid one exits 2 with the reason."""
    typer.echo(str(Frequency.parse(frequency)))
