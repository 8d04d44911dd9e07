"""The late-data entrypoint's body: check the succeeded instances of a process whose late window is open at
the check's time, and rerun those whose late inputs changed."""

from __future__ import annotations

import argparse

from toolkit.el.timestamps import format_timestamp, parse_timestamp
from toolkit.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.ledger.store import DEFAULT_LEASE_SECONDS
from toolkit.runtime.entrypoint import common_parser, run


def _parser() -> argparse.ArgumentParser:
    parser = common_parser(
        "late_check",
        "Late data: for each succeeded instance of a process whose late-process check is due at --time (its "
        "policy's schedule up to the late inputs' cut-off), fingerprint the late inputs again and rerun the "
        "instance when they changed (a LATE_RERUN attempt); checks are recorded, so calling this every few "
        "minutes does only the due work. Exit 0 done, 1 a rerun failed, 5 a rerun was blocked.",
        time_help="The check's own time yyyy-MM-ddTHH:mmZ (UTC), which decides what is due; default: now.")
    parser.add_argument("--process", required=True, help="The process whose instances are checked.")
    parser.add_argument("--cluster", required=True, help="The cluster it runs on.")
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--sweep", action="store_true",
                       help="Check every succeeded instance whose late window is open (the default).")
    scope.add_argument("--instance", metavar="T", help="Check only the instance at T (yyyy-MM-ddTHH:mmZ).")
    parser.add_argument("--max-retry-delay", type=float, metavar="SECONDS",
                        help="Cap each pause between the attempts of a rerun.")
    parser.add_argument("--lease", type=float, default=DEFAULT_LEASE_SECONDS, metavar="SECONDS",
                        help=f"Lease of the instance lock a rerun takes (default {DEFAULT_LEASE_SECONDS:.0f}).")
    return parser


def _body(args: argparse.Namespace, status: dict[str, object]) -> dict[str, object]:
    from toolkit.cli.arguments import nominal_time
    from toolkit.ledger.store import Ledger
    from toolkit.process_runner.late_check import LateChecker, late_options
    from toolkit.process_runner.runner import ProcessRunner, RunOptions, WallClock
    from toolkit.runtime.session import build_session
    from toolkit.storage.catalog import catalog_for
    from toolkit.storage.hadoop import HadoopFileSystem

    now = nominal_time(args.time)
    only = parse_timestamp(args.instance, "--instance") if args.instance else None
    if args.lease <= 0:
        raise UsageError("--lease must be a positive number of seconds.")
    repo = ConfigRepo.load(args.repo)
    process, cluster = repo.process(args.process), repo.cluster(args.cluster)
    status.update(time=format_timestamp(now), cluster=cluster.name)
    if process.late_process is None:
        raise UsageError(f"The process '{process.name}' has no late-process: there is no late data to check; add "
                         "late-process with its late-inputs to rerun on late data.")
    tables = process.workflow.engine.value == "hive" or any(
        repo.feed(item.feed).table_on(cluster.name) is not None for item in (*process.inputs, *process.outputs))
    spark = build_session(f"toolkit-late-check-{process.name}-{cluster.name}", cluster, hive=tables)
    fs = HadoopFileSystem(spark)
    catalogs = []

    def catalog():  # type: ignore[no-untyped-def]
        if not catalogs:
            catalogs.append(catalog_for(spark, cluster.registry_endpoint))
        return catalogs[0]

    ledger = Ledger.of(fs, cluster, lease_seconds=args.lease)
    base = RunOptions(max_retry_delay=args.max_retry_delay)

    def runner_for(workflow_path: str | None) -> ProcessRunner:
        return ProcessRunner(repo, process.name, cluster.name, fs, ledger, spark=spark, catalog=catalog,
                             clock=WallClock(now), run_id=str(status["run_id"]),
                             options=late_options(base, workflow_path))

    try:
        result = LateChecker(repo, process.name, cluster.name, ledger, runner_for).sweep(now, only)
    finally:
        for opened in catalogs:
            opened.close()
    for outcome in result.outcomes:
        line = f"late_check: {format_timestamp(outcome.time)} {outcome.result}"
        if outcome.changed:
            line += f" ({', '.join(outcome.changed)}): rerun {outcome.rerun.status if outcome.rerun else ''}"
        print(line)
    status.update(status=result.status, **result.counters(),
                  instances=[{"time": format_timestamp(o.time), "result": o.result, "changed": o.changed,
                              "rerun": o.rerun.status if o.rerun else None}
                             for o in result.outcomes if o.result != "NOT_DUE"])
    return status


def main() -> int:
    return run("late_check", _parser(), _body)
