"""The wait for an export's instance before any JVM starts: what `toolkit call --wait-first` does before it starts
`spark-submit ... export.py` (the generated export calls, one period after their instance).

It is the export's own wait (`runner.wait_for_instance`: at most one period of the feed, or `--max-wait`, polling
10 s doubling to 5 minutes), after the entrypoint's own checks (`export_entry.checked_call`), through the cluster's
file system without Spark. Published: spark-submit starts. Not published by the end of the wait: the call ends
WAITING (exit 3) with the entrypoint's status line, and no JVM ever started; so does any refusal of those checks.
Past the feed's timeout, the entrypoint is started: it gives the instance up as it always has (exit 1, the failure
notice). A table feed, a cluster only Hadoop's client reaches, or storage not reached without a JVM (WebHDFS down,
Kerberos without its extra) waits in the entrypoint as before. Safemode and the feed's suspension are read first,
as the entrypoint reads them. The wait holds no lease (it only reads), as the entrypoint's does not.
"""

from __future__ import annotations

import time

from toolkit.actions.database_export.export_entry import checked_call, entry_parser, waiting_of
from toolkit.actions.database_export.runner import ExportCall, wait_for_instance
from toolkit.core.ledger.switches import require_running_allowed
from toolkit.core.storage.filesystem import StorageError
from toolkit.errors import TimedOutError, ToolkitError, UsageError
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
    call: ExportCall | None = None
    try:
        call = checked_call(args, status)
        if call.feed.table_on(call.cluster.name) is not None or not reachable_without_jvm(call.cluster):
            return None
        try:
            fs = cluster_file_system(call.cluster)
            fs.exists(call.cluster.write_endpoint or "")  # reached at all (a listing that fails reads as empty)
        except (UsageError, StorageError):  # WebHDFS down, Kerberos without its extra: Hadoop's client may reach it
            return None
        # the entrypoint's first steps: safemode (5), the feed suspended (4), before it waits
        require_running_allowed(fs, call.cluster, "feed", call.feed.name)
        wait_for_instance(call, RunContext(fs, status.run_id), waiting_of(call.feed, call.time, args))
    except TimedOutError:
        return None  # given up by the entrypoint, told as it always is
    except StorageError:  # under the wait: the entrypoint reaches the storage through Hadoop's client
        return None
    except ToolkitError as err:  # still waiting (3), or the entrypoint's own refusals, said as it says them
        record_error(status, err)
        if call is not None and call.feed.notification is not None:
            status.add(notifications_sent=0, notifications_failed=0)  # as the entrypoint counts them: none here
        status.elapsed_seconds = round(time.perf_counter() - began, 3)
        return emit(status, args.status_file)
    return None
