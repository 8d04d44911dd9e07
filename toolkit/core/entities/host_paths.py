"""Cluster properties that name a path on the scheduler's host, where a command `toolkit schedule` calls every 5
minutes writes: `metrics.textfile`, the folder of node_exporter's textfile collector (`toolkit metrics --textfile`,
docs/metrics.md), and `report.out`, the status page (`toolkit report --out`, docs/report.md). Read by the schedule;
checked by lint CL009 and CL010."""

from __future__ import annotations

from posixpath import normpath

from toolkit.core.entities.model import Cluster

METRICS_TEXTFILE = "metrics.textfile"
REPORT_OUT = "report.out"


def host_path(cluster: Cluster, name: str) -> str | None:
    """The path the cluster's property `name` gives, or None when the cluster asks for none."""
    value = cluster.properties.get(name)
    return None if value is None else str(value)


def folder_problem(value: str) -> str | None:
    """Why `value` cannot be the textfile folder (None: it can): an absolute path of the scheduler's host, spelled
    once (no `.` or `..`, no doubled slash), neither a URI nor blank."""
    problem = _absolute_problem(value, "folder", "/var/lib/prometheus/node-exporter")
    if problem is None and normpath(value) != value.rstrip("/") and value != "/":
        return f"is {value!r}: spell the folder without '.', '..' or doubled slashes ({normpath(value)})"
    return problem


def file_problem(value: str) -> str | None:
    """Why `value` cannot be the page (None: it can): an absolute file path of the scheduler's host, spelled once
    (no `.` or `..`, no doubled slash), neither a URI, nor a folder, nor blank."""
    problem = _absolute_problem(value, "file", "/srv/www/status.html")
    if problem is not None:
        return problem
    if value.endswith("/"):
        return f"is {value!r}, a folder: give the page's file in it, such as {value}status.html"
    if normpath(value) != value:
        return f"is {value!r}: spell the file without '.', '..' or doubled slashes ({normpath(value)})"
    return None


def _absolute_problem(value: str, what: str, example: str) -> str | None:
    """What every host path must be: not blank, not a URI, absolute (cron runs in its user's home folder)."""
    if not value.strip():
        return "is blank"
    if "://" in value:
        return f"is {value!r}, a URI: give a {what} of the scheduler's host, such as {example}"
    if not value.startswith("/"):
        return f"is {value!r}, a relative path: give an absolute {what}, such as {example}"
    return None
