"""The process entrypoint's body: arguments, the cheap checks before Spark starts (repo, instance, workflow
file), the session, then one instance or a window of them."""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import TYPE_CHECKING

from toolkit.core.el.timestamps import format_timestamp, parse_timestamp
from toolkit.core.entities.model import Order, quality_gates
from toolkit.core.entities.object_stores import require_no_object_store
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import process_grid
from toolkit.core.ledger.records import parse_wall_clock_stamp
from toolkit.core.storage.java_errors import one_line
from toolkit.errors import SkippedError, ToolkitError, UsageError
from toolkit.services.runtime.entry_frame import common_parser, load_repo, run, seconds
from toolkit.services.runtime.lease_option import add_lease_argument
from toolkit.services.runtime.status import STATUS_OF_EXIT, StatusLine
from toolkit.statuses import Status, worst

if TYPE_CHECKING:
    from toolkit.actions.process_runner.run_results import InstanceResult, RunOptions
    from toolkit.actions.process_runner.runner import ProcessRunner
    from toolkit.clock import WallClock
    from toolkit.core.el.grid import InstanceGrid
    from toolkit.services.runtime.action_session import ActionSession



def entry_parser() -> argparse.ArgumentParser:
    parser = common_parser(
        "process",
        "Run one instance of a process: wait for its inputs, run its workflow (pyspark, spark-sql or hive; or, "
        "for engine spark, its application with its own spark-submit; for oozie and pig, a workflow job of the "
        "cluster's Oozie server, followed to its end) with "
        "the resolved inputs and outputs, retry by its policy, publish the outputs atomically and record it in "
        "the ledger. Exit 0 done, 1 failed or timed out, 2 bad call, 3 still waiting for inputs, 4 skipped "
        "(outside validity, suspended, already succeeded), 5 blocked (safemode, locked, `parallel` reached).",
        time_help="The instance's nominal time yyyy-MM-ddTHH:mmZ (UTC); default: the process's latest instance "
                  "at or before now.")
    parser.add_argument("--process", required=True, help="The process to run.")
    parser.add_argument("--cluster", required=True, help="The cluster it runs on (one of the process's clusters).")
    parser.add_argument("--from", dest="window_from", metavar="FIRST",
                        help="Run every instance from FIRST to --to that has not succeeded, in the process's "
                             "`order` (FIFO oldest first, LIFO newest first, LAST_ONLY the newest only).")
    parser.add_argument("--to", dest="window_to", metavar="LAST", help="The last instance of the --from window.")
    parser.add_argument("--batch", action="store_true",
                        help="Run a batch of a batch consumer (a process without frequency): replay its oldest open "
                             "batch, else consume the inputs' events published since its last batch; exit 4 when "
                             "there is nothing to consume.")
    parser.add_argument("--force", action="store_true", help="Run an instance that succeeded already again.")
    parser.add_argument("--force-if-started-before", metavar="STAMP", type=_stamp,
                        help="Run an instance that succeeded already again only if its last attempt started before "
                             "STAMP (yyyy-MM-ddTHH:mm:ssZ): `toolkit trigger` gives the publication of the newest "
                             "input event, so that a second start for the same event does nothing (exit 4).")
    parser.add_argument("--wait", action=argparse.BooleanOptionalAction, default=True,
                        help="While required inputs are missing, poll (10 s, doubling to 5 min) until the process "
                             "timeout (default); --no-wait exits 3 at once, listing them.")
    parser.add_argument("--max-wait", type=seconds, metavar="SECONDS",
                        help="Poll at most this long, then exit 3 (the scheduler calls again later).")
    parser.add_argument("--max-retry-delay", type=seconds, metavar="SECONDS",
                        help="Cap each pause between attempts (the retry policy's delay), e.g. when rerunning by hand.")
    parser.add_argument("--explain", action="store_true",
                        help="Print the resolution (each input instance, its path, available or not) and exit.")
    parser.add_argument("--now", help="The current time timeouts are measured against (yyyy-MM-ddTHH:mmZ), "
                                      "advancing with real time; default: the wall clock. For reruns and tests.")
    add_lease_argument(parser, "the instance lock")
    return parser


def _body(args: argparse.Namespace, status: StatusLine) -> Status:
    from toolkit.actions.process_runner.process_session import process_session
    from toolkit.actions.process_runner.run_results import RunOptions
    from toolkit.clock import WallClock

    if (args.window_from is None) != (args.window_to is None):
        raise UsageError("Give both --from and --to for a window of instances, or neither.")
    if args.explain and args.window_from:
        raise UsageError("--explain explains one instance: give --time, not --from and --to.")
    repo = load_repo(args.repo)
    process, cluster = repo.process(args.process), repo.cluster(args.cluster)
    require_no_object_store(cluster)
    clock = WallClock(parse_timestamp(args.now, "--now") if args.now else None)
    if args.batch or process.is_batch_consumer:
        return _batch(args, repo, process.name, cluster.name, clock, status)
    grid = process_grid(process, cluster.name)
    window = _window(args, grid) if args.window_from else None
    nominal = None
    if window is None:
        nominal = parse_timestamp(args.time, "--time") if args.time else grid.at_or_before(clock.now())
        if nominal is None:
            raise SkippedError(f"The process '{process.name}' has no instance on cluster '{cluster.name}' before now.")
        status.time = format_timestamp(nominal)  # the grid's newest instance when no --time is given
    options = RunOptions(force=args.force, force_if_started_before=args.force_if_started_before, wait=args.wait,
                         max_wait=args.max_wait, max_retry_delay=args.max_retry_delay)
    if any(quality_gates(repo.feed(output.feed), output) for output in process.outputs):
        from toolkit.services.quality.expectations import import_early

        import_early()  # while Spark starts
    with process_session(repo, process, cluster, "process", status) as session:
        runner = _runner(session, repo, process.name, clock, options, args.lease)
        if nominal is not None and args.explain:
            runner.check_time(nominal)
            print(json.dumps(runner.plan(nominal).to_json(), indent=2))
            return Status.SUCCEEDED
        if nominal is not None:
            return _report(runner.run(nominal), status)
        assert window is not None
        results = _run_window(runner, window, process.order)
    status.add(instances=[{"time": format_timestamp(r.time), "status": r.status, "reason": r.reason}
                          for r in results])
    return worst(r.status for r in results)  # a window's status is its instances' worst


def _batch(args: argparse.Namespace, repo: ConfigRepo, process: str, cluster: str, clock: WallClock,
           status: StatusLine) -> Status:
    """One batch of a batch consumer (`--batch`)."""
    from toolkit.actions.process_runner.batch_runner import BatchRunner
    from toolkit.actions.process_runner.process_session import process_session
    from toolkit.actions.process_runner.run_results import RunOptions

    entity = repo.process(process)
    if not entity.is_batch_consumer:
        raise UsageError(f"The process '{process}' has a frequency: it runs instances (give --time), not batches; "
                         "--batch is for processes without frequency (batch consumers).")
    if not args.batch:
        raise UsageError(f"Process '{process}' has no frequency: it is a batch consumer: run a batch with --batch "
                         "(without --time), or let `toolkit trigger` start it.")
    given = [name for name, value in (("--time", args.time), ("--from", args.window_from), ("--explain", args.explain),
                                      ("--force", args.force),
                                      ("--force-if-started-before", args.force_if_started_before)) if value]
    if given:
        raise UsageError(f"--batch runs the next batch of the process '{process}': {', '.join(given)} cannot be "
                         "given with it.")
    options = RunOptions(max_retry_delay=args.max_retry_delay)
    with process_session(repo, entity, repo.cluster(cluster), "process", status) as session:
        result = BatchRunner(_runner(session, repo, process, clock, options, args.lease)).run()
    status.time = format_timestamp(result.time)  # the batch's newest input instance
    status.add(batch=result.seq, events=len(result.events), inputs=result.inputs)
    return _report(result, status)


def _stamp(text: str) -> datetime:
    """An instant yyyy-MM-ddTHH:mm:ssZ (UTC), as ledger records write them."""
    try:
        return parse_wall_clock_stamp(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an instant yyyy-MM-ddTHH:mm:ssZ (UTC)") from None


def _window(args: argparse.Namespace, grid: InstanceGrid) -> list[datetime]:
    first, last = parse_timestamp(args.window_from, "--from"), parse_timestamp(args.window_to, "--to")
    if first > last:
        raise UsageError("--from is after --to: give the window's first instance, then its last.")
    return list(grid.between(first, last))


def _run_window(runner: ProcessRunner, times: list[datetime], order: Order) -> list[InstanceResult]:
    from toolkit.actions.process_runner.run_results import InstanceResult
    from toolkit.actions.process_runner.sentences import BRIEF

    if order is Order.LAST_ONLY:
        times = times[-1:]  # only the newest instance of the window, whatever became of the others
    done = runner.ledger.instances(runner.process.name, times)
    todo = [t for t in times if t not in done or done[t].status != Status.SUCCEEDED or runner.options.force]
    if order is Order.LIFO:
        todo.reverse()
    results = []
    for t in todo:
        try:
            result = runner.run(t)
        except ToolkitError as err:  # one instance's trouble does not stop the others
            result = InstanceResult(t, STATUS_OF_EXIT.get(err.exit_code, Status.FAILED), str(err))
        print(f"process: {format_timestamp(t)} {result.status}"
              + (f": {one_line(result.reason, BRIEF)}" if result.reason else ""))
        results.append(result)
    return results


def _runner(session: ActionSession, repo: ConfigRepo, process: str, clock: WallClock, options: RunOptions,
            lease_seconds: float) -> ProcessRunner:
    """The process's runner in the session; the status line counts its messages when the process declares
    `notification`."""
    from toolkit.actions.process_runner.runner import ProcessRunner

    runner = ProcessRunner(repo, process, session.cluster.name,
                           session.context(lease_seconds=lease_seconds, catalog=False, clock=clock),
                           spark=session.spark, catalog=session.catalog, options=options)
    if runner.process.notification is not None:
        session.count(runner.notifier)
    return runner


def _report(result: InstanceResult, status: StatusLine) -> Status:
    from toolkit.actions.process_runner.sentences import BRIEF, say

    if result.reason:
        say(f"process: {one_line(result.reason, BRIEF).rstrip('.')}.")
    status.add(record=result.record, missing=result.missing or None, outputs=[o.path for o in result.outputs],
               **result.counters())
    return result.status


def main() -> int:
    return run("process", entry_parser(), _body)

