"""The graph as one self-contained HTML page: the vendored layout library (dagre, `vendor/`), the page's
script and style (`page/`) and the graph as JSON are all inlined, and the page's Content-Security-Policy
forbids every fetch, so it opens from a file, offline, and shows the same thing wherever it is copied."""

from __future__ import annotations

import json
from html import escape
from importlib.resources import files
from string import Template

from toolkit.views.graph.model import Graph
from toolkit.views.graph.palette import DATASOURCE, NO_STATUS, STATUS_COLOURS

PACKAGE = files("toolkit.views.graph")


def render_html(graph: Graph) -> str:
    """The page: the template of `page/graph.html` filled with the style, the scripts and the data."""
    document = {**graph.as_json(), "palette": STATUS_COLOURS, "no_status": NO_STATUS, "datasource": DATASOURCE}
    return Template(_asset("page/graph.html")).substitute(
        title=escape(f"{graph.title}: pipelines"),
        style=_asset("page/graph.css"),
        data=_script_safe(json.dumps(document, ensure_ascii=False, separators=(",", ":"))),
        layout_library=_asset("vendor/dagre.min.js"),
        page_script=_asset("page/graph.js"),
    )


def _asset(name: str) -> str:
    return PACKAGE.joinpath(name).read_text(encoding="utf-8")


def _script_safe(text: str) -> str:
    """JSON that cannot end its <script> element early (`</script>` in a definition) nor open a comment:
    `<`, `>` and `&` are written as JSON escapes, which parse back to the same characters."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
