"""`toolkit lineage`: the lineage of the cluster's runs. `resend` sends the OpenLineage events a backend missed."""

from __future__ import annotations

import typer

from toolkit.cli.commands.lineage_resend import resend_command

app = typer.Typer(help="Lineage of feed instances and runs, and the OpenLineage events kept in the ledger.",
                  no_args_is_help=True)
app.command("resend")(resend_command)
