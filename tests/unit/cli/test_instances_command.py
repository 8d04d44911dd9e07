"""`toolkit instances` through the command line: JSON and text output, exit codes, one-line errors."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from toolkit.cli.main import main

TEMPLATE = str(Path(__file__).resolve().parents[3] / "config_repo_template")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_process_instance_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "instances", "--repo", TEMPLATE, "--process", "hourly-clicks-summary",
                       "--time", "2026-11-21T10:00Z")
    assert code == 0
    data = json.loads(out)
    assert data["process"] == "hourly-clicks-summary" and data["time"] == "2026-11-21T10:00Z"
    (cluster,) = data["clusters"]
    assert cluster["cluster"] == "primary"
    assert [i["time"] for i in cluster["inputs"][0]["instances"]] == [
        "2026-11-21T08:00Z", "2026-11-21T09:00Z", "2026-11-21T10:00Z"]
    assert cluster["outputs"][0]["instance"]["path"].endswith("/data/clicks-hourly-summary/2026/11/21/10")


def test_process_instance_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "instances", "--repo", TEMPLATE, "--process", "daily-clicks-rollup",
                       "--time", "2026-11-21T00:00Z", "--format", "text")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "process daily-clicks-rollup at 2026-11-21T00:00Z on cluster primary"
    assert "24 instance(s)" in lines[1]
    assert lines[-2].startswith("  output daily -> feed clicks-daily [yesterday(0,0)]: 2026-11-20T00:00Z")
    assert lines[-1] == ("  output daily-table -> feed clicks-daily-table [yesterday(0,0)]: 2026-11-20T00:00Z  "
                         "web.clicks_daily (ds=2026-11-20)")


def test_feed_instances(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "instances", "--repo", TEMPLATE, "--feed", "clicks", "--cluster", "backup",
                       "--from", "2026-11-21T09:00Z", "--to", "2026-11-21T11:00Z", "--format", "text")
    assert code == 0
    assert out.splitlines() == [
        "feed clicks on cluster backup, 2026-11-21T09:00Z .. 2026-11-21T11:00Z: 3 instance(s)",
        "  2026-11-21T09:00Z  file:///tmp/feed-toolkit-demo/backup/replica/clicks/2026/11/21/09",
        "  2026-11-21T10:00Z  file:///tmp/feed-toolkit-demo/backup/replica/clicks/2026/11/21/10",
        "  2026-11-21T11:00Z  file:///tmp/feed-toolkit-demo/backup/replica/clicks/2026/11/21/11",
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--process", "nope", "--time", "2026-11-21T10:00Z"], "Unknown process 'nope'"),
        (["--process", "daily-clicks-rollup", "--time", "2026-11-21T01:00Z"], "is not an instance of process"),
        (["--process", "hourly-clicks-summary", "--time", "2026-11-21T10:00"], "Invalid --time"),
        (["--feed", "clicks", "--from", "2026-11-21T09:00Z", "--to", "2026-11-21T10:00Z"], "--feed needs --cluster"),
        (["--feed", "clicks", "--cluster", "primary", "--from", "2026-11-21T10:00Z", "--to", "2026-11-21T09:00Z"],
         "is before --from"),
        (["--feed", "clicks", "--process", "daily-clicks-rollup"], "Give either --process"),
        (["--feed", "clicks", "--cluster", "mars", "--from", "2026-11-21T09:00Z", "--to", "2026-11-21T10:00Z"],
         "Unknown cluster 'mars'"),
        (["--process", "hourly-clicks-summary", "--format", "xml"], "Unknown --format 'xml'"),
    ],
)
def test_bad_calls_exit_2_with_one_sentence(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = run(capsys, "instances", "--repo", TEMPLATE, *argv)
    assert code == 2
    assert out == ""
    assert message in err and err.startswith("toolkit: ") and len(err.strip().splitlines()) == 1


def test_missing_repo_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "instances", "--repo", str(tmp_path / "nothing"), "--process", "p")
    assert code == 2 and "does not exist" in err


def test_without_time_the_newest_instance_at_or_before_now(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "instances", "--repo", TEMPLATE, "--process", "daily-clicks-rollup")
    assert code == 0
    time = json.loads(out)["time"]
    now = datetime.now(timezone.utc)
    # A daily process at midnight UTC: today's midnight (unless the clock turned midnight in between).
    assert time in {f"{now:%Y-%m-%d}T00:00Z", f"{now - timedelta(days=1):%Y-%m-%d}T00:00Z"}
