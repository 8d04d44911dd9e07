"""What a change to a process's computation (its workflow or workflow file, inputs or outputs) does: the instances
it published were computed by another definition than the new one. `plan` names them from the ledger, with the
command that lists their reruns; it reruns nothing (a warning). Each instance's record says which definition
computed it (core/entities/provenance.py): those the new definition computed already (a rerun since, or a commit that
puts back a definition that ran) are not named; a record of an older toolkit says nothing, and its instance is
named, as computed by an unknown definition."""

from __future__ import annotations

import shlex
from collections.abc import Iterator

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.provenance import definition_hash
from toolkit.views.plan.changes import Change
from toolkit.views.plan.comparison import Comparison
from toolkit.views.plan.definitions import edited_fields
from toolkit.views.plan.feed_storage import unread_reason
from toolkit.views.plan.published_runs import succeeded

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
        current = definition_hash(process.new, comparison.head.root)
        stale = [run for run in runs if run.definition is None or run.definition.definition != current]
        if not stale:
            continue  # nothing published, or all by the new definition: the definition change alone
        command = shlex.join(["toolkit", "rerun", "--repo", comparison.repo_path, "--process", name, "--cluster",
                              cluster.name, "--from", format_timestamp(stale[0].instance.time), "--to",
                              format_timestamp(stale[-1].instance.time), "--status", "SUCCEEDED"])
        unknown = sum(1 for run in stale if run.definition is None)
        known = f" ({unknown} by a definition the ledger did not record)" if unknown else ""
        yield Change(name, "process", f"{what}: {len(stale)} published instance(s) computed by another definition"
                     f"{known} (nothing is rerun; the command lists their reruns, --execute runs them)", cluster.name,
                     warning=True, instances=tuple(run.instance for run in stale), read_storage=True, command=command)
