"""The colours of statuses, shared by the three renderers so that a FAILED process is the same red in the
page, in Graphviz and in Mermaid, and the colour of a datasource and its edges. Process statuses are the ledger's
(toolkit/statuses.py), as are a datasource's (its imports' and exports' records); a feed's are the kinds of its
dataset events."""

from __future__ import annotations

from toolkit.core.ledger.records import EVICTED, PUBLISHED, REPLACED
from toolkit.statuses import Status

GOOD, BAD, WAITING, RUNNING, QUIET = "#b7e4c7", "#f4a3a3", "#ffe08a", "#a9d6f5", "#dddddd"

STATUS_COLOURS: dict[str, str] = {
    Status.SUCCEEDED.value: GOOD,
    PUBLISHED: GOOD,
    REPLACED: GOOD,
    Status.FAILED.value: BAD,
    Status.TIMEDOUT.value: BAD,
    Status.KILLED.value: BAD,
    Status.WAITING.value: WAITING,
    Status.BLOCKED.value: WAITING,
    Status.RUNNING.value: RUNNING,
    Status.SKIPPED.value: QUIET,
    EVICTED: QUIET,
}

# A node without a status: white, whether no ledger was read or the ledger has nothing for it.
NO_STATUS = "#ffffff"

# The frame of a datasource node and the colour of its import and export edges, in every renderer (a status only
# fills the node).
DATASOURCE = "#0f7b6c"


def colour(status: str | None) -> str:
    """The fill of a node with this status."""
    return NO_STATUS if status is None else STATUS_COLOURS.get(status, NO_STATUS)
