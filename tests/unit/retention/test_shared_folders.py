"""Retention never deletes another feed's instances, whatever the linter said: a folder holding (or inside)
an instance of another feed of the repo on the cluster is kept and reported; the rest is evicted."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.retention.retention_repo import hourly_instances, make_repo, tree, utc
from toolkit.actions.retention.runner import run_retention
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.local import LocalFileSystem
from toolkit.devtools.feeds_repo import write_feeds_repo
from toolkit.planners.retention.shared_folders import _locations
from toolkit.services.runtime.run_context import RunContext

FS = LocalFileSystem()

FEED = """\
kind: feed
name: {name}
frequency: {frequency}
lint:
  ignore: [RP007, RP009]
clusters:
  - name: primary
    validity:
      start: 2025-12-01T00:00Z
      end: 2099-12-31T00:00Z
    retention:
      limit: {limit}
      action: delete
locations:
  data: {data}
"""


def shared_repo(tmp_path: Path) -> tuple[ConfigRepo, Path]:
    """The issue's case: a days(7) daily feed and a days(90) hourly feed under one static base."""
    repo, root = make_repo(tmp_path)
    (repo / "feeds" / "daily.yaml").write_text(FEED.format(
        name="daily", frequency="days(1)", limit="days(7)", data="/data/shared/${YEAR}/${MONTH}/${DAY}"))
    (repo / "feeds" / "hourly.yaml").write_text(FEED.format(
        name="hourly", frequency="hours(1)", limit="days(90)", data="/data/shared/${YEAR}/${MONTH}/${DAY}/${HOUR}"))
    return ConfigRepo.load(repo), root


def test_the_shorter_retention_keeps_the_other_feeds_instances(tmp_path: Path) -> None:
    repo, root = shared_repo(tmp_path)
    hours = hourly_instances(root, utc(2026, 3, 1, 0), 48, template="data/shared")  # inside daily's 03-01, 03-02
    for day in ("2026/02/10", "2026/03/10"):  # daily instances that hold only the daily feed's own file
        (root / "data/shared" / day).mkdir(parents=True)
        (root / "data/shared" / day / "part-0").write_text("daily\n")
    before = {path: path.read_bytes() for hour in hours for path in hour.iterdir()}
    result = run_retention(repo, "daily", "primary", utc(2026, 4, 1, 10), RunContext(FS))
    assert result.status == "SUCCEEDED"
    assert {path: path.read_bytes() for path in before if path.exists()} == before  # all 48 hours, every byte
    assert [item.path for item in result.evicted] == [
        f"file://{root}/data/shared/2026/02/10", f"file://{root}/data/shared/2026/03/10"]
    assert not (root / "data/shared/2026/02").exists() and not (root / "data/shared/2026/03/10").exists()
    assert [(item.path, item.feed) for item in result.refused] == [
        (f"file://{root}/data/shared/2026/03/01", "hourly"), (f"file://{root}/data/shared/2026/03/02", "hourly")]
    assert result.counters()["instances_refused"] == 2
    report = json.loads(Path(result.report.removeprefix("file://")).read_text())
    assert report["refused"][0]["other_path"] == f"file://{root}/data/shared/2026/03/01/00"
    assert "instance of feed 'hourly'" in report["refused"][0]["reason"]


def test_an_instance_inside_another_feeds_instance_is_kept(tmp_path: Path) -> None:
    repo, root = shared_repo(tmp_path)
    hourly_instances(root, utc(2025, 12, 1, 0), 3, template="data/shared")
    before = tree(root)
    result = run_retention(repo, "hourly", "primary", utc(2026, 4, 1, 10), RunContext(FS))
    assert result.evicted == [] and len(result.refused) == 3  # each hour lies inside daily's 2025-12-01
    assert tree(root) - {p for p in tree(root) if p.startswith("feed-toolkit")} == before


def test_the_index_of_locations_finds_the_folders_that_nest_and_no_sibling_that_shares_a_prefix(
        tmp_path: Path) -> None:
    """neighbours() looks only at locations whose static folders nest (toolkit/planners/retention/shared_folders.py):
    the index must find the folder itself, those above and those below it, and not `/data/ab` for `/data/a` nor
    `/data/a0` (which sort between `/data/a/` and what follows it)."""
    folders = {"feed-0000": "/data/a", "feed-0001": "/data", "feed-0002": "/data/a/deep", "feed-0003": "/data/ab",
               "feed-0004": "/data/a0", "feed-0005": "/other", "feed-0006": "/data/a"}
    repo = tmp_path / "conf"
    write_feeds_repo(repo, tmp_path / "lake", len(folders))
    for name, folder in folders.items():
        path = repo / "feeds" / f"{name}.yaml"
        path.write_text(path.read_text().replace(f"/data/{name}/", f"{folder}/"))
    index = _locations(ConfigRepo.load(repo), "lake")
    assert sorted(location.feed for location in index.nesting("/data/a/")) == \
        ["feed-0000", "feed-0001", "feed-0002", "feed-0006"]
    assert sorted(location.feed for location in index.nesting("/")) == sorted(folders)
    assert [location.feed for location in index.nesting("/other/")] == ["feed-0005"]
