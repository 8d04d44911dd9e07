"""The template's config repo with its clusters' roots in a temp folder, plus a few feeds and processes the
process-runner unit tests need (a feed without availability flag, processes without timeout, latest() inputs)."""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from tests.unit.retention.retention_repo import make_repo
from toolkit.core.entities.repo import ConfigRepo

UTC = timezone.utc


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def process_yaml(name: str, frequency: str, extra: str = "", timezone_: str = "UTC",
                 start: str = "2026-01-01T00:00Z") -> str:
    return textwrap.dedent(f"""\
        kind: process
        name: {name}
        clusters:
          - name: primary
            validity: {{start: "{start}", end: "2027-01-01T00:00Z"}}
        frequency: {frequency}
        timezone: {timezone_}
        workflow: {{engine: spark-sql, path: workflows/daily_clicks_rollup.sql}}
        """) + textwrap.dedent(extra)


EXTRA = {
    # No availability flag: an instance is there when its folder is.
    "feeds/raw-events.yaml": """\
        kind: feed
        name: raw-events
        frequency: hours(1)
        clusters:
          - name: primary
            validity: {start: "2026-11-20T00:00Z", end: "2027-01-01T00:00Z"}
        locations: {data: "/data/raw-events/${YEAR}/${MONTH}/${DAY}/${HOUR}"}
        """,
    "processes/hourly-no-timeout.yaml": process_yaml("hourly-no-timeout", "hours(1)"),
    "processes/five-minutes.yaml": process_yaml("five-minutes", "minutes(5)"),
    "processes/berlin-daily.yaml": process_yaml("berlin-daily", "days(1)", timezone_="Europe/Berlin",
                                                start="2025-12-31T23:00Z"),
    "processes/latest-clicks.yaml": process_yaml("latest-clicks", "hours(1)", """\
        inputs:
          - {name: newest, feed: clicks, start: "latest(0)", end: "latest(0)"}
          - {name: before, feed: clicks, start: "latest(-1)", end: "latest(-1)"}
          - {name: trailing, feed: clicks, start: "now(-2,0)", end: "now(0,0)"}
          - {name: raw, feed: raw-events, start: "latest(0)", end: "latest(0)"}
        """),
}


@dataclass(frozen=True)
class RunnerRepo:
    repo: ConfigRepo
    root: Path  # the primary cluster's file system root

    def uri(self, relative: str) -> str:
        return f"file://{self.root}/{relative}"


def make_runner_repo(tmp: Path) -> RunnerRepo:
    folder, root = make_repo(tmp)
    for relative, text in EXTRA.items():
        (folder / relative).write_text(textwrap.dedent(text))
    return RunnerRepo(ConfigRepo.load(folder), root)


def write_file(path: Path, data: bytes | str = b"", mtime: float | None = None) -> Path:
    """A file (parents created), with its modification time set when given."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path
