"""The page of `toolkit graph` in a real headless Chromium: it opens from a file with no console error and no
request, the repo's nodes and edges are elements of the page with their statuses, a click shows a node's
definition and recent instances, and 500 entities open in a measured time with no two labels overlapping.
Screenshots are kept in test-artifacts/graph/."""

from __future__ import annotations

import json
import time
from pathlib import Path

from playwright.sync_api import Browser, Page

from tests.unit.graph.datasource_history import datasources_repo, write_transfers
from tests.unit.graph.ledger_history import SUMMARY, write_history
from tests.unit.retention.retention_repo import make_repo
from toolkit.cli.main import main
from toolkit.devtools.pipelines_repo import write_pipelines_repo
from toolkit.views.graph.palette import BAD, DATASOURCE, GOOD

OPEN_LIMIT_SECONDS = 8.0  # bench/graph_bench.py measures it with a tighter target; this bounds a loaded machine

# Every label's box (nodes' names and replication edges' feeds) against every other, by a sweep along x;
# and each node's name inside its own box.
LABEL_CHECK = """() => {
  const boxes = [...document.querySelectorAll('#graph g.node text, #graph text.edge-label')].map((el) => {
    const r = el.getBoundingClientRect();
    return { id: el.closest('g.node') ? el.closest('g.node').dataset.id : 'edge:' + el.textContent,
             left: r.left, right: r.right, top: r.top, bottom: r.bottom };
  }).sort((a, b) => a.left - b.left);
  const overlapping = [];
  boxes.forEach((box, i) => {
    for (let j = i + 1; j < boxes.length && boxes[j].left < box.right; j++) {
      const other = boxes[j];
      if (other.top < box.bottom && box.top < other.bottom) overlapping.push([box.id, other.id]);
    }
  });
  const spilling = [...document.querySelectorAll('#graph g.node')].filter((node) => {
    const text = node.querySelector('text').getBoundingClientRect();
    const rect = node.querySelector('rect').getBoundingClientRect();
    return text.left < rect.left || text.right > rect.right || text.top < rect.top || text.bottom > rect.bottom;
  }).map((node) => node.dataset.id);
  return { labels: boxes.length, overlapping, spilling };
}"""


class Opened:
    """A page with everything it logged and requested since it was created."""

    def __init__(self, browser: Browser) -> None:
        self.page: Page = browser.new_page(viewport={"width": 1400, "height": 820})
        self.problems: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda message: self.problems.append(f"{message.type}: {message.text}")
                     if message.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.on("request", lambda request: self.requests.append(request.url))

    def open(self, file: Path) -> float:
        """Seconds from the navigation to the page saying it has drawn the graph."""
        started = time.monotonic()
        self.page.goto(file.as_uri())
        self.page.wait_for_selector("body[data-ready=true]", timeout=60_000)
        return time.monotonic() - started


def write_page(repo: Path, out: Path, *options: str) -> None:
    assert main(["graph", "--repo", str(repo), "--out", str(out), *options]) == 0


def test_the_template_repos_page_shows_the_graph_and_a_nodes_details(browser: Browser, artifacts: Path,
                                                                        tmp_path: Path) -> None:
    conf, _ = make_repo(tmp_path)
    write_history(conf)
    page_file = tmp_path / "pipelines.html"
    write_page(conf, page_file, "--cluster", "primary", "--ledger")
    opened = Opened(browser)
    opened.open(page_file)
    page = opened.page

    nodes = dict(page.eval_on_selector_all("#graph g.node", "els => els.map(e => [e.dataset.id, e.dataset.status])"))
    assert nodes == {
        "cluster/primary": "", "cluster/backup": "",
        "feed/clicks": "published", "feed/clicks-hourly-summary": "replaced", "feed/clicks-daily": "WAITING",
        "feed/clicks-daily-table": "WAITING", "feed/top-pages": "", "feed/page-views": "",
        "feed/page-view-counts": "", "feed/visits": "", "feed/shop-orders": "",
        f"process/{SUMMARY}": "FAILED", "process/daily-clicks-rollup": "WAITING", "process/top-pages": "",
        "process/hourly-page-view-counts": "", "datasource/shop-db": ""}
    edges = page.eval_on_selector_all(
        "#graph path.edge", "els => els.map(e => [e.dataset.source, e.dataset.target, e.dataset.kind])")
    assert sorted(map(tuple, edges)) == sorted([
        ("cluster/primary", "cluster/backup", "replication"),
        ("feed/clicks", f"process/{SUMMARY}", "consumer"),
        (f"process/{SUMMARY}", "feed/clicks-hourly-summary", "producer"),
        ("feed/clicks-hourly-summary", "process/daily-clicks-rollup", "consumer"),
        ("process/daily-clicks-rollup", "feed/clicks-daily", "producer"),
        ("process/daily-clicks-rollup", "feed/clicks-daily-table", "producer"),
        ("feed/clicks-daily", "process/top-pages", "consumer"),
        ("process/top-pages", "feed/top-pages", "producer"),
        ("feed/page-views", "process/hourly-page-view-counts", "consumer"),
        ("process/hourly-page-view-counts", "feed/page-view-counts", "producer"),
        ("datasource/shop-db", "feed/shop-orders", "import"),
        ("feed/top-pages", "datasource/shop-db", "export")])
    assert page.get_attribute(f'g.node[data-id="process/{SUMMARY}"] rect', "fill") == BAD
    assert page.get_attribute('g.node[data-id="feed/clicks"] rect', "fill") == GOOD
    assert "no-producer" in page.get_attribute('g.node[data-id="feed/clicks"]', "class")
    assert page.is_hidden("#details")

    page.click(f'g.node[data-id="process/{SUMMARY}"]')
    assert page.is_visible("#details")
    assert page.inner_text("#details-name") == f"process {SUMMARY}"
    assert f"name: {SUMMARY}" in page.inner_text("#details-definition")
    assert "late-process:" in page.inner_text("#details-definition")
    rows = page.eval_on_selector_all("#details-recent tbody tr",
                                     "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    assert len(rows) == 10
    assert rows[0] == ["2026-11-21T12:00Z", "FAILED", f"run-{SUMMARY}-21-12"]
    assert rows[1] == ["2026-11-21T11:00Z", "SUCCEEDED", f"run-{SUMMARY}-21-11"]
    assert "status on primaryFAILED" in page.inner_text("#details-facts").replace("\n", "").replace("\t", "")
    page.screenshot(path=str(artifacts / "template-process-details.png"))

    page.click('g.node[data-id="feed/clicks"]')
    rows = page.eval_on_selector_all("#details-recent tbody tr",
                                     "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    assert rows == [["2026-11-21T11:00Z", "published", "publish-11"], ["2026-11-21T10:00Z", "published", "publish-10"],
                    ["2026-11-21T09:00Z", "published", "publish-9"], ["2026-11-21T08:00Z", "evicted", "retention-1"]]
    assert "none in the repo" in page.inner_text("#details-facts")
    page.screenshot(path=str(artifacts / "template-feed-details.png"))

    assert opened.problems == []
    assert opened.requests == [page_file.as_uri()]  # the page itself, and nothing else
    page.close()


def test_five_hundred_entities_open_in_time_with_no_overlapping_label(browser: Browser, artifacts: Path,
                                                                       tmp_path: Path) -> None:
    entities = write_pipelines_repo(tmp_path / "repo", tmp_path / "roots")
    page_file = tmp_path / "pipelines.html"
    write_page(tmp_path / "repo", page_file)
    opened = Opened(browser)
    seconds = opened.open(page_file)
    page = opened.page
    timing = page.evaluate("() => ({layoutMs: window.pipelinesGraph.layoutMs, totalMs: window.pipelinesGraph.totalMs})")
    (artifacts / "five-hundred.json").write_text(json.dumps({"entities": entities, "open_seconds": seconds, **timing}))
    page.screenshot(path=str(artifacts / "five-hundred-actual-size.png"))

    assert entities == 500
    assert page.locator("#graph g.node").count() == 500
    assert page.locator("#graph path.edge").count() == 695
    assert seconds < OPEN_LIMIT_SECONDS, f"the page of 500 entities took {seconds:.1f} s to open"
    check = page.evaluate(LABEL_CHECK)
    assert check["labels"] == 500 + 10  # every node's name and the 10 replication edges' labels
    assert check["overlapping"] == [] and check["spilling"] == []
    page.click("#fit")
    page.screenshot(path=str(artifacts / "five-hundred-fit.png"))
    assert opened.problems == []
    page.close()


def test_datasources_are_drawn_with_their_import_and_export_edges(browser: Browser, artifacts: Path,
                                                                  tmp_path: Path) -> None:
    """The datasource samples' repo with an unused second datasource, coloured from import and export records: the
    datasources are nodes of their kind in their colour, their edges labelled, and a datasource's recent instances
    say which import or export each is."""
    conf = datasources_repo(tmp_path)
    write_transfers(conf)
    page_file = tmp_path / "datasources.html"
    write_page(conf, page_file, "--cluster", "primary", "--ledger")
    whole_file = tmp_path / "whole.html"
    write_page(conf, whole_file)
    opened = Opened(browser)
    opened.open(page_file)
    page = opened.page
    kinds = dict(page.eval_on_selector_all("#graph g.node", "els => els.map(e => [e.dataset.id, e.dataset.kind])"))
    assert kinds == {"cluster/primary": "cluster", "feed/customers": "feed", "feed/daily-sales": "feed",
                     "process/customer-report": "process", "datasource/sales-db": "datasource"}
    edges = page.eval_on_selector_all(
        "#graph path.edge", "els => els.map(e => [e.dataset.source, e.dataset.target, e.dataset.kind])")
    assert sorted(map(tuple, edges)) == sorted([
        ("process/customer-report", "feed/daily-sales", "producer"),
        ("feed/customers", "process/customer-report", "consumer"),
        ("datasource/sales-db", "feed/customers", "import"),
        ("feed/daily-sales", "datasource/sales-db", "export")])
    labels = page.eval_on_selector_all("#graph text.edge-label", "els => els.map(e => e.textContent).sort()")
    assert labels == ["export", "import"]
    stroke = page.evaluate("""() => getComputedStyle(
        document.querySelector('g.node[data-id="datasource/sales-db"] rect')).stroke""")
    red, green, blue = (int(DATASOURCE[i:i + 2], 16) for i in (1, 3, 5))
    assert stroke == f"rgb({red}, {green}, {blue})"
    assert page.evaluate("""() => getComputedStyle(
        document.querySelector('path.edge[data-kind="import"]')).stroke""") == stroke
    check = page.evaluate(LABEL_CHECK)
    assert check["overlapping"] == [] and check["spilling"] == []

    page.click('g.node[data-id="datasource/sales-db"]')
    assert page.inner_text("#details-name") == "datasource sales-db"
    assert page.is_visible("#details-what")
    rows = page.eval_on_selector_all("#details-recent tbody tr",
                                     "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    assert rows[0] == ["2026-11-21T10:00Z", "FAILED", "import-10", "import customers"]
    assert rows[3] == ["2026-11-21T00:00Z", "RUNNING", "export-21", "export daily-sales"]
    assert "jdbc:postgresql://db.example:5432/sales" in page.inner_text("#details-definition")
    page.screenshot(path=str(artifacts / "datasource-details.png"))
    page.click("g.node[data-id=\"process/customer-report\"]")
    assert page.is_hidden("#details-what")  # a process's instances have no such column
    assert opened.problems == [] and opened.requests == [page_file.as_uri()]
    page.close()

    whole = Opened(browser)
    whole.open(whole_file)
    assert whole.page.locator('#graph g.node[data-kind="datasource"]').count() == 2  # archive-db, used by none
    assert whole.problems == []
    whole.page.close()
