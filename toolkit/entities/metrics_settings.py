"""A cluster's `metrics.textfile` property: the folder of node_exporter's textfile collector on the scheduler's
host, where `toolkit schedule` has `toolkit metrics --textfile` write the cluster's metrics every 5 minutes
(docs/metrics.md). Read by the schedule and checked by lint CL009."""

from __future__ import annotations

from posixpath import normpath

from toolkit.entities.model import Cluster

METRICS_TEXTFILE = "metrics.textfile"


def metrics_textfile(cluster: Cluster) -> str | None:
    """The folder the cluster's metrics are written to, or None when the cluster asks for none."""
    value = cluster.properties.get(METRICS_TEXTFILE)
    return None if value is None else str(value)


def textfile_problem(value: str) -> str | None:
    """Why `value` cannot be the textfile folder (None: it can): an absolute path of the scheduler's host, spelled
    once (no `.` or `..`, no doubled slash), neither a URI nor blank."""
    if not value.strip():
        return "is blank"
    if "://" in value:
        return f"is {value!r}, a URI: give a folder of the scheduler's host, such as /var/lib/prometheus/node-exporter"
    if not value.startswith("/"):
        return f"is {value!r}, a relative path: give an absolute folder, such as /var/lib/prometheus/node-exporter"
    if normpath(value) != value.rstrip("/") and value != "/":
        return f"is {value!r}: spell the folder without '.', '..' or doubled slashes ({normpath(value)})"
    return None
