"""A cluster `lake` of hourly file feeds in a temp folder, and `toolkit retain --cluster lake --all` called in this
process, for the tests of retention for a whole cluster."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from toolkit.cli.main import main
from toolkit.devtools.feeds_repo import CLUSTER, write_feeds_repo, write_hours

FIRST = datetime(2025, 1, 1, tzinfo=timezone.utc)


def lake(tmp_path: Path, feeds: int = 3, hours: int = 24 * 35, limit: str = "days(30)"
         ) -> tuple[Path, Path, list[str]]:
    """(the repo, the cluster's root, the feeds' names), each feed kept `limit` with `hours` hourly instances from
    FIRST."""
    root = tmp_path / "lake"
    root.mkdir(parents=True)
    names = write_feeds_repo(tmp_path / "conf", root, feeds, limit=limit)
    for name in names:
        write_hours(root, name, FIRST, hours)
    return tmp_path / "conf", root, names


def retain_all(capsys: pytest.CaptureFixture[str], repo: Path, *extra: str, time: str
               ) -> tuple[int, list[dict[str, object]], dict[str, object], str]:
    """(exit code, the feeds' status lines in feed name order, the summary line, stderr)."""
    code = main(["retain", "--repo", str(repo), "--cluster", CLUSTER, "--all", "--time", time, *extra])
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert out.splitlines()[-1].startswith("{")  # the summary is the last line
    feeds = sorted(lines[:-1], key=lambda line: str(line["entity"]))
    return code, feeds, lines[-1], err
