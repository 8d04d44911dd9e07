"""The status page as one self-contained HTML file, as the graph page is (toolkit/views/graph/html.py): the page's
script and style (`page/`) and the cells as one compact JSON document are inlined, and the page's
Content-Security-Policy forbids every fetch, so it opens from a file, offline.

The cells are compact so that a year of hourly instances of 200 entities stays a few megabytes: per grid, its
instance times in minutes since the epoch as runs of equal steps and its states as one character each (an index
into `states`); only
the cells with details or an SLA miss have an entry of their own, keyed by their index. The page's script builds
one element per cell carrying its time and state (`data-t`, `data-s`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timedelta
from html import escape
from importlib.resources import files
from itertools import groupby
from operator import sub
from string import Template

from toolkit.core.el.timestamps import format_timestamp
from toolkit.views.report.model import Grid, Report
from toolkit.views.report.states import COLOURS, FAILURES, RERUN_STATUS, State

PACKAGE = files("toolkit.views.report")
# The header lists this many of the newest failures, misses and held instances (and counts them all).
LISTED = 5
_STATES = tuple(State)
MINUTE = timedelta(minutes=1)
_CODE = {state: "0123456789abcdefghijklmnopqrstuvwxyz"[index] for index, state in enumerate(_STATES)}


def render_html(report: Report) -> str:
    document = {
        "title": report.title, "cluster": report.cluster, "now": format_timestamp(report.now),
        "graph_page": report.graph_page,
        "states": [{"name": state.value, "colour": COLOURS[state], "failure": state in FAILURES,
                    "rerun_status": RERUN_STATUS.get(state)} for state in _STATES],
        "header": report.header.to_json(LISTED),
        "grids": [_grid_json(grid) for grid in report.grids],
    }
    return Template(_asset("page/report.html")).substitute(
        title=escape(f"{report.title}: status of {report.cluster}"),
        style=_asset("page/report.css"),
        data=_script_safe(json.dumps(document, ensure_ascii=False, separators=(",", ":"))),
        page_script=_asset("page/report.js"),
    )


def _grid_json(grid: Grid) -> dict[str, object]:
    return {
        "node": grid.node, "kind": grid.kind, "name": grid.name, "frequency": grid.frequency,
        "tags": dict(grid.tags), "pipelines": list(grid.pipelines), "suspended": grid.suspended,
        "options": grid.options,
        "times": _steps(grid.times),
        "states": "".join(map(_CODE.__getitem__, grid.states)),
        "sla": {str(index): missed for index, missed in sorted(grid.sla.items())},
        "details": {str(index): told.to_json() for index, told in sorted(grid.details.items())},
    }


def _steps(times: Sequence[datetime]) -> list[int]:
    """The times in minutes since the epoch as the first one and runs of equal steps, `[first, step, count, step,
    count, ...]`: a year of hourly instances is `[first, 60, 8759]`, months take a run per length of month. The
    steps are the times' differences, grouped (both in C: a year's page has 2.6 million times)."""
    if not times:
        return []
    runs = [int(times[0].timestamp()) // 60]
    for step, repeated in groupby(map(sub, times[1:], times)):
        runs += [step // MINUTE, len(list(repeated))]
    return runs


def _asset(name: str) -> str:
    return PACKAGE.joinpath(name).read_text(encoding="utf-8")


def _script_safe(text: str) -> str:
    """JSON that cannot end its <script> element early nor open a comment (as the graph page's)."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
