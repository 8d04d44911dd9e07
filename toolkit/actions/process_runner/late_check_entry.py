"""The late-data entrypoint's body: check the succeeded instances of a process whose late window is open at
the check's time, and rerun those whose late inputs changed."""

from __future__ import annotations

import argparse

from toolkit.core.el.grid import require_instance
from toolkit.core.el.timestamps import format_timestamp, parse_timestamp
from toolkit.core.entities.object_stores import require_no_object_store
from toolkit.core.instances.grids import process_grid
from toolkit.errors import UsageError
from toolkit.services.runtime.entry_frame import common_parser, load_repo, nominal, run, seconds
from toolkit.services.runtime.lease_option import add_lease_argument
from toolkit.services.runtime.status import StatusLine
from toolkit.statuses import Status


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
    parser.add_argument("--max-retry-delay", type=seconds, metavar="SECONDS",
                        help="Cap each pause between the attempts of a rerun.")
    add_lease_argument(parser, "the instance lock a rerun takes", renewed=False)
    return parser


def _body(args: argparse.Namespace, status: StatusLine) -> Status:
    from toolkit.actions.process_runner.late_check import LateChecker, late_options
    from toolkit.actions.process_runner.process_session import process_session
    from toolkit.actions.process_runner.run_results import RunOptions
    from toolkit.actions.process_runner.runner import ProcessRunner
    from toolkit.clock import WallClock
    from toolkit.services.runtime.run_context import RunContext

    now = nominal(args, status)
    repo = load_repo(args.repo)
    process, cluster = repo.process(args.process), repo.cluster(args.cluster)
    require_no_object_store(cluster)
    only = parse_timestamp(args.instance, "--instance") if args.instance else None
    if only is not None:
        require_instance(process_grid(process, cluster.name), only,
                         f"process '{process.name}' on cluster '{cluster.name}'")
    if process.late_process is None:
        raise UsageError(f"The process '{process.name}' has no late-process: there is no late data to check; add "
                         "late-process with its late-inputs to rerun on late data.")
    with process_session(repo, process, cluster, "late-check", status) as session:
        ledger = session.ledger(args.lease)
        base = RunOptions(max_retry_delay=args.max_retry_delay)

        def runner_for(workflow_path: str | None) -> ProcessRunner:
            context = RunContext(session.fs, status.run_id, lease_seconds=args.lease, clock=WallClock(now))
            return ProcessRunner(repo, process.name, cluster.name, context, spark=session.spark,
                                 catalog=session.catalog, options=late_options(base, workflow_path))

        result = LateChecker(repo, process.name, cluster.name, ledger, runner_for).sweep(now, only)
    for outcome in result.outcomes:
        line = f"late_check: {format_timestamp(outcome.time)} {outcome.result}"
        if outcome.changed:
            line += f" ({', '.join(outcome.changed)}): rerun {outcome.rerun.status if outcome.rerun else ''}"
            if outcome.rerun is not None and outcome.rerun.reason and outcome.rerun.status != Status.SUCCEEDED:
                line += f": {outcome.rerun.reason}"
        print(line)
    if only is not None and not any(o.time == only for o in result.outcomes):
        print(f"late_check: {format_timestamp(only)} has no late check open at {format_timestamp(now)} (not "
              "succeeded, or past its cut-off).")
    status.add(**result.counters(),
               instances=[{"time": format_timestamp(o.time), "result": o.result, "changed": o.changed,
                           "rerun": o.rerun.status if o.rerun else None}
                          for o in result.outcomes if o.result != "NOT_DUE"])
    return result.status


def main() -> int:
    return run("late_check", _parser(), _body)
