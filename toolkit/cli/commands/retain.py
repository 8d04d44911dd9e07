"""`toolkit retain`: retention of a file feed with no JVM, the entrypoint's own call (its arguments, plan, lease,
archive, events, lineage, notifications, ledger record and status line: toolkit/actions/retention/retention_entry.py) in
this process, for one feed or (`--all`) every due feed of a cluster. A feed that needs Spark (a catalog table, a
cluster only Hadoop's client reaches) is refused, naming `spark-submit entrypoints/retention.py`."""

from __future__ import annotations

import typer

# typer.command's settings for this command (toolkit/cli/main.py): every argument, --help too, goes to argparse
COMMAND_SETTINGS = {"add_help_option": False,
                    "context_settings": {"allow_extra_args": True, "ignore_unknown_options": True}}


def retain_command(ctx: typer.Context) -> None:
    """Evict a feed's instances older than its retention limit on a cluster, without Spark: `toolkit retain
    --repo R --feed F --cluster C [--time T] [--dry-run] [--lease SECONDS] [--status-file F]`, or every due feed of
    the cluster with `--all [--parallel N]` instead of `--feed`. The arguments, the status lines on stdout and the
    exit codes are entrypoints/retention.py's; `toolkit retain --help` lists them."""
    from toolkit.actions.retention.retention_entry import retain_main

    raise typer.Exit(retain_main(list(ctx.args)))
