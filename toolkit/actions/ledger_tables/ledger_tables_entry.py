"""The ledger_tables entrypoint's body: register (or refresh) the tables over a cluster's ledger in the cluster's
metastore (toolkit/actions/ledger_tables/tables.py); `--dry-run` prints the statements and starts no JVM."""

from __future__ import annotations

import argparse

from toolkit.actions.ledger_tables.tables import ledger_database, register, statements
from toolkit.core.entities.launcher_settings import launcher_confs
from toolkit.core.entities.object_stores import require_no_object_store
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.services.runtime.entry_frame import common_parser, load_repo, run
from toolkit.services.runtime.status import StatusLine
from toolkit.statuses import Status


def _parser() -> argparse.ArgumentParser:
    parser = common_parser("ledger_tables", "Register (or refresh) external tables over a cluster's ledger records "
                                            "(instances, attempts, batches, events, plans, commits) in the "
                                            "cluster's metastore, in the database of its property ledger.database.",
                           time_help="Not used: the tables hold every record.")
    parser.add_argument("--cluster", required=True, help="The cluster whose ledger and metastore to use.")
    parser.add_argument("--dry-run", action="store_true", help="Print the statements; change nothing.")
    return parser


def _body(args: argparse.Namespace, status: StatusLine) -> Status:
    from toolkit.core.ledger.switches import require_no_safemode
    from toolkit.core.storage.session_sql import run_ddl
    from toolkit.services.runtime.action_session import action_session

    repo = load_repo(args.repo)
    cluster = repo.cluster(args.cluster)
    require_no_object_store(cluster)
    database, root = ledger_database(cluster), LedgerLayout.of(cluster).root
    status.add(database=database, ledger=root)
    if args.dry_run:
        print(f"CREATE DATABASE IF NOT EXISTS `{database}`;")
        for each in statements(database, root):
            print(f"{each.sql};")
        return Status.DRY_RUN
    # The ledger belongs to no feed or process: the cluster's own queueName and jobPriority, if it has them.
    with action_session("ledger-tables", None, cluster, status, hive=True,
                        launcher=launcher_confs(cluster)) as session:
        require_no_safemode(session.fs, cluster)
        done = register(session.catalog(), lambda sql, subject: run_ddl(session.spark, sql, subject), database,
                        root)
    for name, what in done.items():
        print(f"ledger_tables: {what} {database}.{name}")
    status.add(tables=done)
    return Status.SUCCEEDED


def main() -> int:
    return run("ledger_tables", _parser(), _body)
