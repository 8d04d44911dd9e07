"""A config repo with one streamed file feed, `events`, hourly on cluster `primary` rooted in a local folder."""

from __future__ import annotations

import textwrap
from pathlib import Path

from toolkit.core.entities.repo import ConfigRepo

FEED = """\
kind: feed
name: events
frequency: hours(1)
timezone: UTC
availabilityFlag: _SUCCESS
clusters:
  - name: primary
    validity: {{start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}}
locations:
  data: /data/events/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}
columns:
  - {{name: ts, type: string}}
  - {{name: user, type: string}}
  - {{name: page, type: string}}
  - {{name: ms, type: int}}
format: parquet
ingest:
  landing: /landing/events
  dead-letters: /rejected/events
{ingest}
"""

DELIMITED = """\
  format: delimited
  fields: [ts, user, _, page, ms]
  time: ts"""


def make_repo(tmp: Path, ingest: str = DELIMITED, extra: str = "") -> tuple[ConfigRepo, Path]:
    """(the repo, the cluster root); the landing folder exists and is empty."""
    root = tmp / "root"
    (root / "landing" / "events").mkdir(parents=True)
    repo = tmp / "conf"
    (repo / "clusters").mkdir(parents=True)
    (repo / "feeds").mkdir()
    (repo / "clusters" / "primary.yaml").write_text(textwrap.dedent(f"""\
        kind: cluster
        name: primary
        interfaces:
          write: {{endpoint: "file://{root}", version: "3.4"}}
        locations: {{working: /working}}
        """))
    (repo / "feeds" / "events.yaml").write_text(FEED.format(ingest=ingest) + extra)
    return ConfigRepo.load(repo), root
