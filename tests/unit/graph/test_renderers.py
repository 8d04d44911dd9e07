"""The dot, Mermaid and HTML texts of one graph: every node and edge in each, the statuses' colours and the
mark of a feed without producer, names that would break the syntax escaped, and the page self-contained."""

from __future__ import annotations

import json
import re

from toolkit.core.entities.kinds import Kind
from toolkit.views.graph.dot import render_dot
from toolkit.views.graph.html import render_html
from toolkit.views.graph.mermaid import render_mermaid
from toolkit.views.graph.model import Edge, EdgeKind, Graph, Instance, Node
from toolkit.views.graph.palette import BAD, GOOD, NO_STATUS

HOSTILE = 'say "hi" </script><script>alert(1)</script> & <!-- \\'

GRAPH = Graph(
    title="conf",
    cluster="primary",
    ledger=True,
    nodes=(
        Node("cluster/primary", Kind.CLUSTER, "primary", "clusters/primary.yaml", "kind: cluster\n"),
        Node("cluster/backup", Kind.CLUSTER, "backup", "clusters/backup.yaml", "kind: cluster\n"),
        Node("feed/clicks", Kind.FEED, "clicks", "feeds/clicks.yaml", HOSTILE, no_producer=True, status="published",
             recent=(Instance("2026-11-21T10:00Z", "published", "run-1"),)),
        Node("process/summary", Kind.PROCESS, "summary", "processes/summary.yaml", "kind: process\n",
             status="FAILED"),
        Node("feed/odd", Kind.FEED, 'odd"name', "feeds/odd.yaml", "kind: feed\n"),
    ),
    edges=(
        Edge("cluster/primary", "cluster/backup", EdgeKind.REPLICATION, ("clicks",)),
        Edge("feed/clicks", "process/summary", EdgeKind.CONSUMER),
        Edge("process/summary", "feed/odd", EdgeKind.PRODUCER),
    ),
)


def test_dot() -> None:
    text = render_dot(GRAPH)
    assert text.startswith('digraph "conf" {\n  graph [rankdir=LR') and text.endswith("}\n")
    assert ('"feed/clicks" [label="clicks", shape="note", style="filled,dashed", fillcolor="' + GOOD
            + '", tooltip="feed clicks; no producer; status published"];') in text
    assert f'"process/summary" [label="summary", shape="box", style="filled,rounded", fillcolor="{BAD}"' in text
    assert f'"cluster/primary" [label="primary", shape="box3d", style="filled", fillcolor="{NO_STATUS}"' in text
    assert '"feed/odd" [label="odd\\"name"' in text
    assert '"cluster/primary" -> "cluster/backup" [class="replication", style="dashed", label="clicks"' in text
    assert '"feed/clicks" -> "process/summary" [class="consumer", style="solid"];' in text
    assert '"process/summary" -> "feed/odd" [class="producer", style="solid"];' in text
    assert len(re.findall(r" -> ", text)) == 3


def test_mermaid() -> None:
    lines = render_mermaid(GRAPH).splitlines()
    assert lines[:6] == ['flowchart LR', '  n0[("primary")]', '  n1[("backup")]', '  n2[/"clicks"/]',
                         '  n3("summary")', '  n4[/"odd#quot;name"/]']
    assert lines[6:9] == ['  n0 -.->|"clicks"| n1', "  n2 --> n3", "  n3 --> n4"]
    assert "  class n2 noproducer;" in lines
    assert [line for line in lines if line.startswith("  style ")] == [f"  style n2 fill:{GOOD}",
                                                                      f"  style n3 fill:{BAD}"]


def test_the_page_embeds_the_graph_and_the_layout_library_and_fetches_nothing() -> None:
    page = render_html(GRAPH)
    # the hostile definition cannot end the data's script element: the page keeps exactly its three scripts
    assert page.count("</script>") == 3 and "alert(1)</script>" not in page
    data = json.loads(re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', page, re.S)[1])
    assert data["nodes"][2]["definition"] == HOSTILE
    assert [node["id"] for node in data["nodes"]] == [node.id for node in GRAPH.nodes]
    assert data["edges"][0] == {"source": "cluster/primary", "target": "cluster/backup", "kind": "replication",
                                "label": "clicks", "feeds": ["clicks"]}
    assert data["nodes"][2]["recent"] == [{"time": "2026-11-21T10:00Z", "status": "published", "run_id": "run-1",
                                          "what": None}]
    assert (data["palette"]["FAILED"], data["no_status"], data["cluster"], data["ledger"]) == (
        BAD, NO_STATUS, "primary", True)
    assert "default-src 'none'" in page and "<title>conf: pipelines</title>" in page
    assert "dagre" in page and 'rankdir: "LR"' in page  # the library and the page's script, inlined
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page)
