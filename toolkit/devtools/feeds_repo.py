"""A config repo of many hourly file feeds on one `file://` cluster, and their instances, for the benchmark and the
tests of retention for a whole cluster (`--all`): feed k is `feed-<k>`, its data under `/data/feed-<k>/` by hour,
kept for `limit` on the cluster `lake` whose root is `root`."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

CLUSTER = "lake"

_CLUSTER = """\
kind: cluster
name: lake
interfaces:
  readonly: {{endpoint: "file://{root}", version: "3.4"}}
  write: {{endpoint: "file://{root}", version: "3.4"}}
  execute: {{endpoint: "spark://127.0.0.1:7077", version: "4.0"}}
  workflow: {{endpoint: "cron://localhost", version: "1.0"}}
locations: {{staging: /toolkit/staging, temp: /toolkit/temp, working: /toolkit/working}}
"""

_FEED = """\
kind: feed
name: {name}
frequency: hours(1)
clusters:
  - name: lake
    type: source
    validity: {{start: "{start}", end: "2099-12-31T00:00Z"}}
    retention: {{limit: {limit}, action: delete}}
locations:
  data: /data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}
"""


def feed_name(k: int) -> str:
    return f"feed-{k:04d}"


def write_feeds_repo(repo: Path, root: Path, feeds: int, *, limit: str = "days(30)",
                     start: str = "2025-01-01T00:00Z") -> list[str]:
    """The repo `repo` of the cluster `lake` (root `root`) and `feeds` hourly feeds; their names."""
    (repo / "clusters").mkdir(parents=True, exist_ok=True)
    (repo / "feeds").mkdir(exist_ok=True)
    (repo / "clusters" / "lake.yaml").write_text(_CLUSTER.format(root=root))
    names = [feed_name(k) for k in range(feeds)]
    for name in names:
        (repo / "feeds" / f"{name}.yaml").write_text(_FEED.format(name=name, limit=limit, start=start))
    return names


def write_hours(root: Path, feed: str, first: datetime, hours: int, payload: bytes = b"x" * 100) -> None:
    """`hours` hourly instances of `feed` from `first`: a folder each with one data file."""
    for k in range(hours):
        folder = root / "data" / feed / f"{first + timedelta(hours=k):%Y/%m/%d/%H}"
        os.makedirs(folder)
        with open(folder / "part-00000", "wb") as out:
            out.write(payload)
