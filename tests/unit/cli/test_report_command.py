"""`toolkit report` from the command line: the page of a known ledger holds every instance of the window with its
state, its details and its commands; the header says what needs a person; every wrong call is one sentence and
exit 2, with nothing written."""

from __future__ import annotations

import json
import re
from collections.abc import Container, Mapping, Sequence
from datetime import datetime, timedelta, timezone
from functools import partial
from pathlib import Path

import pytest

from tests.unit.report.report_history import CLICKS_STATES, COMMIT, NOW, SUMMARY_STATES, write_states
from tests.unit.retention.retention_repo import make_repo
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.instance_states import InstanceState
from toolkit.views.graph.build import build_graph
from toolkit.views.ledger_access import Now
from toolkit.views.report import reading as report_reading
from toolkit.views.report.cells import plain_successes, trimmed
from toolkit.views.report.order import dependency_order
from toolkit.views.report.reading import read_report


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def embedded(page: Path) -> dict:
    text = page.read_text()
    return json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>', text, re.S)[1])


def minutes(grid: dict) -> list[int]:
    """The grid's times (minutes since the epoch), unrolled from [first, step, count, ...] as the page does."""
    runs = grid["times"]
    unrolled = runs[:1]
    for step, count in zip(runs[1::2], runs[2::2], strict=True):
        unrolled += [unrolled[-1] + step * k for k in range(1, count + 1)]
    return unrolled


def cells(document: dict, node: str) -> dict[str, str]:
    """The grid's cells as {time: state}, decoded as the page's script decodes them."""
    names = [state["name"] for state in document["states"]]
    grid = next(grid for grid in document["grids"] if grid["node"] == node)
    times = [datetime.fromtimestamp(minute * 60, timezone.utc).strftime("%Y-%m-%dT%H:%MZ") for minute in minutes(grid)]
    return dict(zip(times, (names[int(code, 36)] for code in grid["states"]), strict=True))


@pytest.fixture()
def page(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[Path, Path, dict]:
    conf, _ = make_repo(tmp_path)
    write_states(conf)
    out = tmp_path / "status.html"
    code, printed, err = run(capsys, "report", "--repo", str(conf), "--cluster", "primary", "--now", NOW,
                             "--out", str(out))
    assert (code, err) == (0, "")
    assert printed == f"wrote {out}: 13 entities, 312 cells of cluster primary\n"
    return conf, out, embedded(out)


def test_every_instance_of_the_window_is_a_cell_with_its_state(page: tuple[Path, Path, dict]) -> None:
    conf, out, document = page
    summary = cells(document, "process/hourly-clicks-summary")
    # the 24 newest hourly instances up to --now, as `toolkit status` lists them
    first = datetime(2026, 11, 20, 14, tzinfo=timezone.utc)
    assert list(summary) == [(first + timedelta(hours=n)).strftime("%Y-%m-%dT%H:%MZ") for n in range(24)]
    assert {hour: summary[f"2026-11-21T{hour:02d}:00Z"] for hour in SUMMARY_STATES} == SUMMARY_STATES
    assert set(list(summary.values())[:10]) == {"waiting"}  # the 20th: never run
    clicks = cells(document, "feed/clicks")
    assert {hour: clicks[f"2026-11-21T{hour:02d}:00Z"] for hour in CLICKS_STATES} == CLICKS_STATES
    assert cells(document, "feed/clicks-hourly-summary")["2026-11-21T11:00Z"] == "replaced"
    assert sum(len(grid["states"]) for grid in document["grids"]) == 312
    # times as the first and runs of equal steps: 23 hours after the first, 23 days after the first
    grid = {grid["node"]: grid for grid in document["grids"]}
    assert grid["process/hourly-clicks-summary"]["times"] == [int(first.timestamp()) // 60, 60, 23]
    assert grid["feed/visits"]["times"][1:] == [1440, 23]
    # the graph's dependency order, every feed and process of the cluster once
    order = dependency_order(build_graph(ConfigRepo.load(conf), "primary"))
    assert [grid["node"] for grid in document["grids"]] == order and len(order) == 13


def test_a_cells_details_and_the_entitys_commands(page: tuple[Path, Path, dict]) -> None:
    conf, _, document = page
    grid = next(grid for grid in document["grids"] if grid["node"] == "process/hourly-clicks-summary")
    index = {datetime.fromtimestamp(m * 60, timezone.utc).hour: str(i) for i, m in enumerate(minutes(grid))
             if m >= datetime(2026, 11, 21, tzinfo=timezone.utc).timestamp() // 60}
    blocked = grid["details"][index[12]]
    assert blocked["tries"][0]["quality"][0].startswith("quality/clicks_summary.json: 1/2 passed (blocked publication)")
    assert [attempt["kind"] for attempt in grid["details"][index[11]]["tries"]] == ["RUN", "LATE_RERUN"]
    assert grid["details"][index[8]]["commit"] == COMMIT
    assert grid["details"][index[10]]["hold"] == "held by ops@host at 2026-11-21T10:05:00Z: bad upstream data"
    assert grid["details"][index[13]]["waits_for"][0].startswith("clicks 2026-11-21T11:00Z")
    assert grid["options"] == f"--repo {conf} --process hourly-clicks-summary --cluster primary"
    reruns = {state["name"]: state["rerun_status"] for state in document["states"]}
    assert (reruns["quality-blocked"], reruns["timed-out"], reruns["suspended"]) == ("FAILED", "TIMEDOUT", None)
    feed = next(grid for grid in document["grids"] if grid["node"] == "feed/page-views")
    assert feed["suspended"] == "since 2026-11-21T09:00:00Z by ops@host: source is down"


def test_the_header_says_what_needs_a_person(page: tuple[Path, Path, dict]) -> None:
    header = page[2]["header"]
    assert header["failures"] == 2  # 09:00 timed out, 12:00 quality-blocked
    assert [(item["entity"], item["time"], item["state"]) for item in header["failed"]] == [
        ("process/hourly-clicks-summary", "2026-11-21T12:00Z", "quality-blocked"),
        ("process/hourly-clicks-summary", "2026-11-21T09:00Z", "timed-out")]
    assert header["held"] == 1 and header["suspended"] == ["feed/page-views"]
    # the daily entities' oldest instance of the window, the first of them in dependency order
    assert header["oldest_waiting"] == {"entity": "feed/visits", "time": "2026-10-29T00:00Z", "state": "waiting"}
    # judged as `toolkit sla` judges them, each entity over its own window: the clicks (slaHigh 4 hours) not there
    # by now, the two processes with a shouldEndIn not succeeded by now; the other entities declare no SLA
    assert header["sla_misses"] == 20 + 21 + 24
    grids = {grid["node"]: grid for grid in page[2]["grids"]}
    assert {node for node, grid in grids.items() if grid["sla"]} == {
        "feed/clicks", "process/hourly-clicks-summary", "process/daily-clicks-rollup"}
    clicks = grids["feed/clicks"]["sla"]
    assert sorted(clicks, key=int) == [str(index) for index in range(20)]  # 2026-11-20T14:00Z to 2026-11-21T09:00Z
    assert clicks["0"] == "not arrived 19h 30m after its slaHigh deadline 2026-11-20T18:00Z"
    # the daily rollup's first instance of its own window (24 days back), not an hourly window's
    assert grids["process/daily-clicks-rollup"]["sla"]["0"] == \
        "not succeeded 23d 7h 30m after its shouldEndIn deadline 2026-10-29T06:00Z"


def test_the_page_is_self_contained_and_written_atomically(page: tuple[Path, Path, dict]) -> None:
    _, out, _ = page
    text = out.read_text()
    assert "default-src 'none'" in text and "<script src" not in text and "<link rel=\"stylesheet" not in text
    assert re.search(r"https?://", text) is None
    assert [path.name for path in out.parent.iterdir() if path.name.startswith(".status")] == []


@pytest.mark.parametrize(("argv", "sentence"), [
    (["--cluster", "nope"], "Unknown cluster 'nope'"),
    ([], "--cluster is required"),
    (["--cluster", "primary", "--from", "2026-11-21T10:00Z", "--to", "2026-11-21T09:00Z"],
     "--to 2026-11-21T09:00Z is before --from 2026-11-21T10:00Z"),
    (["--cluster", "primary", "--from", "yesterday"], "--from"),
    (["--cluster", "primary", "--out", "{tmp}/missing/status.html"], "does not exist"),
    (["--cluster", "primary", "--out", "{tmp}"], "is a folder"),
    (["--cluster", "primary", "--graph-page", "javascript:alert(1)//"],
     "--graph-page 'javascript:alert(1)//' is a javascript: URL"),
])
def test_a_wrong_call_is_one_sentence_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                 argv: list[str], sentence: str) -> None:
    conf, _ = make_repo(tmp_path)
    argv = [item.replace("{tmp}", str(tmp_path)) for item in argv]
    if "--out" not in argv:
        argv += ["--out", str(tmp_path / "status.html")]
    code, printed, err = run(capsys, "report", "--repo", str(conf), *argv)
    assert (code, printed) == (2, "")
    assert sentence in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "status.html").exists()


def test_a_cluster_root_that_is_not_there_is_named_and_no_page_written(capsys: pytest.CaptureFixture[str],
                                                                       tmp_path: Path) -> None:
    conf, root = make_repo(tmp_path)
    write_states(conf)
    root.rename(tmp_path / "unmounted")
    code, printed, err = run(capsys, "report", "--repo", str(conf), "--cluster", "primary", "--now", NOW, "--out",
                             str(tmp_path / "status.html"))
    assert (code, printed) == (1, "")
    assert f"The root file://{root} of cluster 'primary' does not exist" in err and err.count("\n") == 1
    assert not (tmp_path / "status.html").exists()


def test_older_plain_successes_read_from_their_states_alone_make_the_grid_every_row_makes(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The page's process grids build no row for an older plain success (toolkit/views/report/reading.py): with the
    newest 2 detailed, the grids are those made of a row for every instance, then trimmed, as before."""
    conf, _ = make_repo(tmp_path)
    write_states(conf)
    config = ConfigRepo.load(conf)
    cluster, now = config.cluster("primary"), Now.of(NOW)
    plain: list[set[datetime]] = []

    def plain_of_two(times: Sequence[datetime], states: Mapping[datetime, InstanceState],
                     held: Container[datetime]) -> set[datetime]:
        plain.append(plain_successes(times, states, held, detailed=2))
        return plain[-1]

    monkeypatch.setattr(report_reading, "trimmed", partial(trimmed, detailed=2))
    monkeypatch.setattr(report_reading, "plain_successes", plain_of_two)
    fast = read_report(conf, config, cluster, now, None, None, "graph.html")
    monkeypatch.setattr(report_reading, "plain_successes", lambda times, states, held: set())
    every_row = read_report(conf, config, cluster, now, None, None, "graph.html")
    assert fast == every_row
    # the summary's successes of one attempt of the 21st, 00:00 to 08:00 (10:00 is held, 11:00 a late rerun)
    assert {t.strftime("%dT%H") for t in set().union(*plain)} >= {f"21T{hour:02d}" for hour in range(9)}
    summary = next(grid for grid in fast.grids if grid.name == "hourly-clicks-summary")
    assert [cell.details for cell in summary.cells if cell.time.day == 21 and cell.time.hour < 9] == [None] * 9
