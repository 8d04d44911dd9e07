"""A cluster's `report.out` property: the status page's file on the scheduler's host, which `toolkit schedule` has
`toolkit report --out` write every 5 minutes (docs/report.md). Read by the schedule and checked by lint CL010."""

from __future__ import annotations

from posixpath import normpath

from toolkit.entities.model import Cluster

REPORT_OUT = "report.out"


def report_out(cluster: Cluster) -> str | None:
    """The page the cluster's status is written to, or None when the cluster asks for none."""
    value = cluster.properties.get(REPORT_OUT)
    return None if value is None else str(value)


def out_problem(value: str) -> str | None:
    """Why `value` cannot be the page (None: it can): an absolute file path of the scheduler's host, spelled once
    (no `.` or `..`, no doubled slash), neither a URI, nor a folder, nor blank."""
    if not value.strip():
        return "is blank"
    if "://" in value:
        return f"is {value!r}, a URI: give a file of the scheduler's host, such as /srv/www/status.html"
    if not value.startswith("/"):
        return f"is {value!r}, a relative path: give an absolute file, such as /srv/www/status.html"
    if value.endswith("/"):
        return f"is {value!r}, a folder: give the page's file in it, such as {value}status.html"
    if normpath(value) != value:
        return f"is {value!r}: spell the file without '.', '..' or doubled slashes ({normpath(value)})"
    return None
