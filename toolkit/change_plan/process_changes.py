"""What a change to a process's computation (its workflow or workflow file, inputs or outputs) does: every
instance it published was computed by the old definition. `plan` names them from the ledger, with the command
that lists their reruns; it reruns nothing (a warning)."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.change_plan.changes import Change
from toolkit.change_plan.comparison import Comparison
from toolkit.change_plan.definitions import edited_fields
from toolkit.change_plan.feed_storage import unread_reason
from toolkit.change_plan.published_runs import succeeded
from toolkit.el.timestamps import format_timestamp

COMPUTATION = ("workflow", "inputs", "outputs")  # the fields (and the workflow file) whose change changes the data


def process_changes(comparison: Comparison) -> Iterator[Change]:
    for process in comparison.kept_processes():
        edited = [field for field in edited_fields(process.old, process.new, comparison.base.root,
                                                    comparison.head.root)
                  if field.split(".")[0].split("[")[0] in COMPUTATION or field == "workflow file"]
        if not edited:
            continue
        name, cluster = process.new.name, process.cluster
        what = f"{', '.join(edited)} edited"
        runs = succeeded(comparison.storage, cluster, name)
        if runs is None:
            yield Change(name, "process", f"{what}: its published instances were computed by the old definition; "
                         f"ledger not read ({unread_reason(None, cluster)})", cluster.name, warning=True)
            continue
        if not runs:
            continue  # nothing published: the definition change alone, listed by definitions.py
        command = (f"toolkit rerun --repo {comparison.repo_path} --process {name} --cluster {cluster.name} "
                       f"--from {format_timestamp(runs[0].time)} --to {format_timestamp(runs[-1].time)} "
                       "--status SUCCEEDED")
        yield Change(name, "process", f"{what}: {len(runs)} published instance(s) computed by the old definition "
                     "(nothing is rerun; the command lists their reruns, --execute runs them)", cluster.name,
                     warning=True, instances=runs, read_storage=True, command=command)
