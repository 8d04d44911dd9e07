"""The actions `toolkit rerun --feed F --action A` knows, by name: adding one is a module beside this one and a line
here."""

from __future__ import annotations

from toolkit.errors import UsageError
from toolkit.views.reruns import database_export, database_import, replication, retention
from toolkit.views.reruns.hive_transfers import EXPORT_RERUNS, IMPORT_RERUNS
from toolkit.views.reruns.rows import ActionReruns

ACTIONS: dict[str, ActionReruns] = {item.name: item for item in (
    replication.RERUNS, retention.RERUNS, database_import.RERUNS, database_export.RERUNS, EXPORT_RERUNS,
    IMPORT_RERUNS)}


def action_reruns(name: str) -> ActionReruns:
    found = ACTIONS.get(name)
    if found is None:
        raise UsageError(f"Unknown --action {name!r}: give one of {', '.join(ACTIONS)} (a process's instances: "
                         "--process).")
    return found
