"""The status page of `toolkit report` in a real headless Chromium: it opens from a file with no console error and
no request, every instance of a known ledger is a cell carrying its time and state, a click shows the instance's
details and its commands, the filters hide what they should, an entity's link opens the graph page at its node,
and a year of hourly instances of 200 entities opens in a measured time, building the grids as they come into
view. Screenshots are kept in test-artifacts/report/."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.unit.report.report_history import CLICKS_STATES, COMMIT, NOW, SUMMARY_STATES, write_states
from tests.unit.retention.retention_repo import make_repo
from toolkit.cli.main import main
from toolkit.views.report.html import render_html
from toolkit.views.report.model import Details, Grid, Report
from toolkit.views.report.states import State

OPEN_LIMIT_SECONDS = 4.0  # measured at about 1 s on 2 cores; this bounds a loaded machine
SUMMARY = "process/hourly-clicks-summary"


class Opened:
    """A page with everything it logged and requested since it was created."""

    def __init__(self, browser: Browser) -> None:
        self.page: Page = browser.new_page(viewport={"width": 1400, "height": 900})
        self.problems: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda message: self.problems.append(f"{message.type}: {message.text}")
                     if message.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.on("request", lambda request: self.requests.append(request.url))

    def open(self, file: Path) -> float:
        """Seconds from the navigation to the page saying it has built its grids."""
        started = time.monotonic()
        self.page.goto(file.as_uri())
        self.page.wait_for_selector("body[data-ready=true]", timeout=60_000)
        return time.monotonic() - started


def _cells(page: Page, node: str) -> dict[str, str]:
    return dict(page.eval_on_selector_all(f'.grid[data-node="{node}"] .cell',
                                          "cells => cells.map(c => [c.dataset.t, c.dataset.s])"))


def test_every_instance_is_a_cell_and_a_click_shows_its_details(browser: Browser, artifacts: Path,
                                                                 tmp_path: Path) -> None:
    conf, _ = make_repo(tmp_path)
    write_states(conf)
    page_file, graph_file = tmp_path / "status.html", tmp_path / "graph.html"
    assert main(["report", "--repo", str(conf), "--cluster", "primary", "--now", NOW, "--out", str(page_file)]) == 0
    assert main(["graph", "--repo", str(conf), "--cluster", "primary", "--ledger", "--out", str(graph_file)]) == 0
    opened = Opened(browser)
    opened.open(page_file)
    page = opened.page

    assert page.locator(".grid").count() == 13
    assert page.locator(".cell").count() == 312
    summary = _cells(page, SUMMARY)
    first = datetime(2026, 11, 20, 14, tzinfo=timezone.utc)
    assert list(summary) == [(first + timedelta(hours=n)).strftime("%Y-%m-%dT%H:%MZ") for n in range(24)]
    assert {hour: summary[f"2026-11-21T{hour:02d}:00Z"] for hour in SUMMARY_STATES} == SUMMARY_STATES
    clicks = _cells(page, "feed/clicks")
    assert {hour: clicks[f"2026-11-21T{hour:02d}:00Z"] for hour in CLICKS_STATES} == CLICKS_STATES
    attention = page.locator("#attention").inner_text()
    assert "2 failed" in attention and "1 held" in attention and "suspended: feed/page-views" in attention
    assert "oldest waiting: feed/visits 2026-10-29T00:00Z" in attention
    page.screenshot(path=str(artifacts / "template-status.png"), full_page=True)

    # a click on the quality-blocked instance: its attempt, the gate's result, the rerun command
    page.click(f'.grid[data-node="{SUMMARY}"] .cell[data-t="2026-11-21T12:00Z"]')
    details = page.locator("#details")
    assert details.is_visible()
    assert page.locator("#details-name").inner_text() == "process hourly-clicks-summary 2026-11-21T12:00Z"
    facts = page.locator("#details-facts").inner_text()
    assert "quality-blocked" in facts and "blocked the publication" in facts
    tries = page.locator("#details-tries tbody").inner_text()
    assert "quality/clicks_summary.json: 1/2 passed (blocked publication)" in tries
    command = page.locator("#details-command").inner_text()
    assert (f"toolkit rerun --repo {conf} --process hourly-clicks-summary --cluster primary --from 2026-11-21T12:00Z "
            "--to 2026-11-21T12:00Z --status FAILED --execute") in command
    page.screenshot(path=str(artifacts / "template-quality-blocked-details.png"))

    # the held one is released, not rerun; the one recorded with its commit says it
    page.click(f'.grid[data-node="{SUMMARY}"] .cell[data-t="2026-11-21T10:00Z"]')
    assert "toolkit resume" in page.locator("#details-command").inner_text()
    assert "toolkit rerun" not in page.locator("#details-command").inner_text()
    assert "held by ops@host" in page.locator("#details-facts").inner_text()
    page.click(f'.grid[data-node="{SUMMARY}"] .cell[data-t="2026-11-21T08:00Z"]')
    assert COMMIT in page.locator("#details-facts").inner_text()

    # hover: the summary of the instance, its quality result and its commit
    page.hover(f'.grid[data-node="{SUMMARY}"] .cell[data-t="2026-11-21T11:00Z"]')
    assert "late-rerun" in page.locator("#tip").inner_text() and "2 attempt(s)" in page.locator("#tip").inner_text()
    page.hover(f'.grid[data-node="{SUMMARY}"] .cell[data-t="2026-11-21T12:00Z"]')
    assert "quality: quality/clicks_summary.json: 1/2 passed (blocked publication)" in page.locator("#tip").inner_text()
    page.hover(f'.grid[data-node="{SUMMARY}"] .cell[data-t="2026-11-21T08:00Z"]')
    assert f"config commit {COMMIT[:12]}" in page.locator("#tip").inner_text()

    # filters: a state keeps the grids with such a cell; a name keeps the entities whose name holds its letters
    page.select_option("#filter-state", "quality-blocked")
    assert page.eval_on_selector_all(".grid:not([hidden])", "grids => grids.map(g => g.dataset.node)") == [SUMMARY]
    page.screenshot(path=str(artifacts / "template-filtered-by-state.png"))
    page.select_option("#filter-state", "")
    page.fill("#filter-name", "clksum")
    assert page.eval_on_selector_all(".grid:not([hidden])", "grids => grids.map(g => g.dataset.node)") == [
        SUMMARY, "feed/clicks-hourly-summary"]
    page.select_option("#filter-tag", "source=web-frontend")
    assert page.locator(".grid:not([hidden])").count() == 0
    assert page.locator("#shown").inner_text() == "0 of 13 shown"

    assert opened.problems == []
    assert opened.requests == [page_file.as_uri()]  # the page itself, and nothing else

    # the entity's link opens the graph page at its node
    page.fill("#filter-name", "")
    page.select_option("#filter-tag", "")
    page.click(f'.grid[data-node="{SUMMARY}"] h2 a')
    page.wait_for_selector("body[data-ready=true]")
    assert page.url == f"{graph_file.as_uri()}#{SUMMARY}"
    assert page.locator("#details-name").inner_text() == "process hourly-clicks-summary"
    assert opened.problems == []


def _year_report(entities: int) -> Report:
    """`entities` hourly grids of a year of successes, a failure every 1,000 hours (details on those)."""
    first = datetime(2025, 1, 1, tzinfo=timezone.utc)
    hours = [first + timedelta(hours=k) for k in range(8760)]
    grids = []
    failed = range(999, 8760, 1000)
    states = tuple(State.FAILED if k % 1000 == 999 else State.SUCCEEDED for k in range(8760))
    for n in range(entities):
        grids.append(Grid("process", f"p{n:04d}", "hours(1)", (("owner", f"team-{n % 7}"),), (), tuple(hours), states,
                          details={k: Details(error=f"boom {n}") for k in failed}))
    return Report("scale", "primary", datetime(2026, 1, 1, tzinfo=timezone.utc), tuple(grids), "graph.html")


def test_a_year_of_hourly_instances_of_200_entities_opens_quickly(browser: Browser, artifacts: Path,
                                                                    tmp_path: Path) -> None:
    page_file = tmp_path / "status.html"
    started = time.monotonic()
    page_file.write_text(render_html(_year_report(200)))
    rendered = time.monotonic() - started
    opened = Opened(browser)
    seconds = opened.open(page_file)
    page = opened.page
    print(f"200 entities x 8,760 hours: page {page_file.stat().st_size / 1e6:.1f} MB rendered in {rendered:.1f} s, "
          f"opened in {seconds:.2f} s")
    assert seconds < OPEN_LIMIT_SECONDS
    assert page.evaluate("window.statusReport.cells") == 200 * 8760
    built = page.locator(".cell").count()
    assert 0 < built < 20 * 8760  # only the grids in view are built
    page.screenshot(path=str(artifacts / "year-of-200-entities.png"))
    last = page.locator('.grid[data-node="process/p0199"]')
    last.scroll_into_view_if_needed()
    expect(last.locator(".cell")).to_have_count(8760)
    assert last.locator('.cell[data-t="2025-02-11T15:00Z"]').get_attribute("data-s") == "failed"  # hour 999
    assert last.locator('.cell[data-t="2025-12-31T23:00Z"]').get_attribute("data-s") == "succeeded"
    assert page.locator("#attention").inner_text().startswith("1600 failed")  # 8 a grid
    assert opened.problems == []
