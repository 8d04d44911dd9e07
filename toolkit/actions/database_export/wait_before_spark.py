"""The wait for an export's instance before any JVM starts: what `toolkit call --wait-first` does before it starts
`spark-submit ... export.py` (the generated export calls, one period after their instance).

It is the export's own wait (`runner.wait_for_instance`: at most one period of the feed, or `--max-wait`, polling
10 s doubling to 5 minutes), after the entrypoint's own checks (`export_entry.checked_call`), through the cluster's
file system without Spark. Published: spark-submit starts. Not published by the end of the wait: the call ends
WAITING (exit 3) with the entrypoint's status line, and no JVM ever started; so does any refusal of those checks.
Past the feed's timeout, the entrypoint is started: it gives the instance up as it always has (exit 1, the failure
notice). A table feed, or a cluster only Hadoop's client reaches, waits in the entrypoint as before. The wait holds
no lease (it only reads), as the entrypoint's does not.
"""

from __future__ import annotations

import time

from toolkit.actions.database_export.export_entry import checked_call, entry_parser, waiting_of
from toolkit.actions.database_export.runner import wait_for_instance
from toolkit.errors import TimedOutError, ToolkitError
from toolkit.services.runtime.cluster_files import cluster_file_system, reachable_without_jvm
from toolkit.services.runtime.entry_frame import new_run_id, parsed_quietly, record_error
from toolkit.services.runtime.run_context import RunContext
from toolkit.services.runtime.status import StatusLine, emit


def wait_for_data(arguments: list[str]) -> int | None:
    """Wait, without a JVM, for the instance the export entrypoint's `arguments` (with their `--time`) export. None:
    start the entrypoint now. Otherwise the call ended here: its status line is printed and this is its exit code."""
    args = parsed_quietly(entry_parser(), arguments)
    if args is None:  # a bad call: the entrypoint says so, as it always has
        return None
    began = time.perf_counter()
    status = StatusLine(action="export", run_id=new_run_id(), entity=args.feed, cluster=args.cluster)
    try:
        call = checked_call(args, status)
        if call.feed.table_on(call.cluster.name) is not None or not reachable_without_jvm(call.cluster):
            return None
        context = RunContext(cluster_file_system(call.cluster), status.run_id)
        wait_for_instance(call, context, waiting_of(call.feed, call.time, args))
    except TimedOutError:
        return None  # given up by the entrypoint, told as it always is
    except ToolkitError as err:  # still waiting (3), or the entrypoint's own refusals, said as it says them
        record_error(status, err)
        status.elapsed_seconds = round(time.perf_counter() - began, 3)
        return emit(status, args.status_file)
    return None
