"""Datasources in `toolkit graph` (the datasource samples' repo): each one a node of its own kind, an `import` edge
datasource -> feed and an `export` edge feed -> datasource, an unused datasource drawn too; their shapes and
colour in dot, Mermaid and the page; a password-text never in the page; statuses from the import and export
records of a cluster's ledger."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.unit.entities.datasource_samples import DATASOURCE, DATASOURCE_TEXT, SECRET, write_repo
from tests.unit.graph.datasource_history import datasources_repo, write_transfers
from toolkit.cli.main import main
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.views.graph.build import build_graph
from toolkit.views.graph.dot import render_dot
from toolkit.views.graph.html import render_html
from toolkit.views.graph.ledger_statuses import with_statuses
from toolkit.views.graph.mermaid import render_mermaid
from toolkit.views.graph.model import EdgeKind, Instance
from toolkit.views.graph.palette import BAD, NO_STATUS
from toolkit.views.graph.palette import DATASOURCE as DATASOURCE_COLOUR


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return datasources_repo(tmp_path)


def test_datasources_are_nodes_with_import_and_export_edges(repo: Path) -> None:
    graph = build_graph(ConfigRepo.load(repo))
    assert [(node.id, node.kind) for node in graph.nodes] == [
        ("cluster/primary", Kind.CLUSTER), ("feed/customers", Kind.FEED), ("feed/daily-sales", Kind.FEED),
        ("process/customer-report", Kind.PROCESS),
        ("datasource/archive-db", Kind.DATASOURCE), ("datasource/sales-db", Kind.DATASOURCE)]  # unused: drawn
    assert [(edge.source, edge.target, edge.kind, edge.label) for edge in graph.edges] == [
        ("process/customer-report", "feed/daily-sales", EdgeKind.PRODUCER, ""),
        ("feed/customers", "process/customer-report", EdgeKind.CONSUMER, ""),
        ("datasource/sales-db", "feed/customers", EdgeKind.IMPORT, "import"),
        ("feed/daily-sales", "datasource/sales-db", EdgeKind.EXPORT, "export")]
    # read by a process and written by nothing but its import: it has a producer
    assert [node.id for node in graph.nodes if node.no_producer] == []
    assert graph.counts() == {"clusters": 1, "feeds": 2, "processes": 1, "datasources": 2, "edges": 4}
    sales = next(node for node in graph.nodes if node.id == "datasource/sales-db")
    assert sales.file.endswith("datasources/sales-db.yaml") and sales.definition == DATASOURCE


def test_on_one_cluster_only_the_datasources_its_feeds_use(repo: Path) -> None:
    graph = build_graph(ConfigRepo.load(repo), "primary")
    assert [node.id for node in graph.nodes if node.kind is Kind.DATASOURCE] == ["datasource/sales-db"]
    assert {(edge.source, edge.target) for edge in graph.edges if edge.kind in (EdgeKind.IMPORT, EdgeKind.EXPORT)} \
        == {("datasource/sales-db", "feed/customers"), ("feed/daily-sales", "datasource/sales-db")}


def test_the_dot_text(repo: Path) -> None:
    lines = render_dot(build_graph(ConfigRepo.load(repo))).splitlines()
    assert (f'  "datasource/sales-db" [label="sales-db", shape="cylinder", style="filled", fillcolor="{NO_STATUS}", '
            f'tooltip="datasource sales-db", color="{DATASOURCE_COLOUR}", penwidth="2"];') in lines
    assert ('  "datasource/archive-db" [label="archive-db", shape="cylinder", style="filled", '
            f'fillcolor="{NO_STATUS}", tooltip="datasource archive-db", color="{DATASOURCE_COLOUR}", '
            'penwidth="2"];') in lines
    assert (f'  "datasource/sales-db" -> "feed/customers" [class="import", style="solid", color="{DATASOURCE_COLOUR}", '
            f'fontcolor="{DATASOURCE_COLOUR}", label="import"];') in lines
    assert (f'  "feed/daily-sales" -> "datasource/sales-db" [class="export", style="solid", '
            f'color="{DATASOURCE_COLOUR}", fontcolor="{DATASOURCE_COLOUR}", label="export"];') in lines
    assert len([line for line in lines if " -> " in line]) == 4


def test_the_mermaid_text(repo: Path) -> None:
    lines = render_mermaid(build_graph(ConfigRepo.load(repo))).splitlines()
    assert lines[:11] == [
        "flowchart LR", '  n0[("primary")]', '  n1[/"customers"/]', '  n2[/"daily-sales"/]',
        '  n3("customer-report")', '  n4{{"archive-db"}}', '  n5{{"sales-db"}}',
        "  n3 --> n2", "  n1 --> n3", '  n5 -->|"import"| n1', '  n2 -->|"export"| n5']
    assert lines[11:] == [
        "  classDef noproducer stroke-dasharray: 5 5, stroke-width: 2px;",
        f"  classDef datasource stroke: {DATASOURCE_COLOUR}, stroke-width: 2px;",
        "  class n4,n5 datasource;",
        f"  linkStyle 2,3 stroke: {DATASOURCE_COLOUR}, color: {DATASOURCE_COLOUR};"]


def page_data(page: str) -> dict:  # type: ignore[type-arg]
    found = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', page, re.S)
    assert found is not None
    return json.loads(found[1])  # type: ignore[no-any-return]


def test_the_page_data_and_its_style(repo: Path) -> None:
    page = render_html(build_graph(ConfigRepo.load(repo)))
    data = page_data(page)
    assert [(node["id"], node["kind"]) for node in data["nodes"]][-2:] == [
        ("datasource/archive-db", "datasource"), ("datasource/sales-db", "datasource")]
    assert data["edges"][2:] == [
        {"source": "datasource/sales-db", "target": "feed/customers", "kind": "import", "label": "import",
         "feeds": []},
        {"source": "feed/daily-sales", "target": "datasource/sales-db", "kind": "export", "label": "export",
         "feeds": []}]
    assert data["datasource"] == DATASOURCE_COLOUR
    # the page's style draws the kind and its edges in that colour, its script sets it and keys it in the legend
    assert ".node.datasource rect { stroke: var(--datasource);" in page
    assert ".edge.import, .edge.export { stroke: var(--datasource);" in page
    assert 'setProperty("--datasource", data.datasource)' in page
    assert 'key("datasource", "#fff", "datasource")' in page


@pytest.mark.parametrize("text", [
    DATASOURCE_TEXT,
    DATASOURCE_TEXT.replace(f"passwordText: {SECRET}", f'passwordText: "{SECRET}"'),
    DATASOURCE_TEXT.replace(f"passwordText: {SECRET}", f"passwordText: |\n        {SECRET}"),
    DATASOURCE_TEXT.replace(f"passwordText: {SECRET}", f"passwordText: {SECRET[:5]}\n        {SECRET[5:]}"),
    DATASOURCE_TEXT.replace("    credential:\n      type: password-text\n      userName: reader\n      passwordText: "
                            f"{SECRET}\n", "    credential: {type: password-text, userName: reader, passwordText: "
                                           f"{SECRET}}}\n"),
])
def test_a_password_text_is_never_in_the_page(tmp_path: Path, text: str) -> None:
    root = write_repo(tmp_path / "conf", text)
    config = ConfigRepo.load(root)
    page = render_html(build_graph(config))
    assert SECRET not in page and SECRET[:5] not in page and SECRET[5:] not in page
    definition = next(node["definition"] for node in page_data(page)["nodes"] if node["kind"] == "datasource")
    assert "(passwordText hidden)" in definition
    assert "endpoint: jdbc:postgresql://db.example:5432/sales" in definition  # the rest as written


def test_a_password_text_the_hiding_cannot_find_leaves_the_definition_out(tmp_path: Path) -> None:
    text = DATASOURCE_TEXT.replace(f"passwordText: {SECRET}", "passwordText: reader")  # the user's name too
    root = write_repo(tmp_path / "conf", text)
    [node] = [n for n in build_graph(ConfigRepo.load(root)).nodes if n.kind is Kind.DATASOURCE]
    assert node.definition == (f"# The definition of datasource 'sales-db' is not shown: it holds a password "
                               f"(passwordText). See {root / 'datasources' / 'sales-db.yaml'}.\n")


def test_the_cli_writes_every_format_with_datasources(repo: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", "--repo", str(repo), "--format", "mermaid"]) == 0
    assert '{{"sales-db"}}' in capsys.readouterr().out
    assert main(["graph", "--repo", str(repo), "--out", str(tmp_path / "g.html")]) == 0
    assert capsys.readouterr().out == (f"wrote {tmp_path / 'g.html'}: 1 cluster, 2 feeds, 1 process, "
                                       "2 datasources, 4 edges\n")


def test_statuses_from_the_import_and_export_records(repo: Path) -> None:
    ledger = write_transfers(repo)
    graph = with_statuses(build_graph(ConfigRepo.load(repo), "primary"), ledger)
    nodes = {node.id: node for node in graph.nodes}
    sales = nodes["datasource/sales-db"]
    assert sales.status == "FAILED"  # its newest transfer: the import of 10:00 on the 21st
    assert sales.recent == (
        Instance("2026-11-21T10:00Z", "FAILED", "import-10", "import customers"),
        Instance("2026-11-21T09:00Z", "SUCCEEDED", "import-9", "import customers"),
        Instance("2026-11-21T08:00Z", "SUCCEEDED", "import-8", "import customers"),
        Instance("2026-11-21T00:00Z", "RUNNING", "export-21", "export daily-sales"),
        Instance("2026-11-20T00:00Z", "SUCCEEDED", "export-20", "export daily-sales"))
    # customers has no dataset event: its import's newest status, as a producer's
    assert (nodes["feed/customers"].status, nodes["feed/customers"].recent) == ("FAILED", ())
    # an export is no producer: daily-sales takes its process's status only (it has none here)
    assert nodes["feed/daily-sales"].status is None
    cut = with_statuses(build_graph(ConfigRepo.load(repo), "primary"), ledger, recent=2)
    assert [item.run_id for item in next(n for n in cut.nodes if n.id == "datasource/sales-db").recent] == [
        "import-10", "import-9"]
    page = page_data(render_html(graph))
    [entry] = [node for node in page["nodes"] if node["id"] == "datasource/sales-db"]
    assert entry["status"] == "FAILED" and entry["recent"][3] == {
        "time": "2026-11-21T00:00Z", "status": "RUNNING", "run_id": "export-21", "what": "export daily-sales"}
    assert f'"datasource/sales-db" [label="sales-db", shape="cylinder", style="filled", fillcolor="{BAD}"' in \
        render_dot(graph)
    assert [line for line in render_mermaid(graph).splitlines() if line.startswith("  style ")] == [
        f"  style n1 fill:{BAD}", f"  style n4 fill:{BAD}"]  # customers, sales-db


def test_a_datasource_without_records_has_no_status(repo: Path) -> None:
    ledger = Ledger.of(LocalFileSystem(), ConfigRepo.load(repo).cluster("primary"))
    graph = with_statuses(build_graph(ConfigRepo.load(repo), "primary"), ledger)
    sales = next(node for node in graph.nodes if node.id == "datasource/sales-db")
    assert (sales.status, sales.recent) == (None, ())
