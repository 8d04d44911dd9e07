"""Temporary config repos for the schedule tests: the template, plus processes on cadences cron cannot say."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"

# name -> (frequency, timezone, validity start, validity end): the odd cadences of the issue.
ODD_PROCESSES = {
    "every-seven-minutes": ("minutes(7)", "UTC", "2026-01-01T00:03Z", "2027-01-01T00:00Z"),
    "every-five-hours": ("hours(5)", "UTC", "2026-01-01T02:00Z", None),
    "every-five-months": ("months(5)", "UTC", "2026-01-15T06:00Z", None),
    "paris-daily": ("days(1)", "Europe/Paris", "2026-03-27T05:00Z", None),  # 06:00 in Paris, across the DST change
    "month-end": ("months(1)", "UTC", "2026-01-31T00:00Z", None),
}


def template_copy(tmp: Path, *, notify: str | None = None) -> Path:
    """The template repo in `tmp`; `notify` names the cluster whose trigger posts its events to Airflow."""
    repo = tmp / "repo"
    shutil.copytree(TEMPLATE, repo)
    if notify is not None:
        path = repo / "clusters" / f"{notify}.yaml"
        text = path.read_text(encoding="utf-8")
        assert "\nproperties:\n" in text
        path.write_text(text.replace("\nproperties:\n", "\nproperties:\n  trigger.notify: airflow\n"),
                        encoding="utf-8")
    return repo


def odd_cadences_repo(tmp: Path) -> Path:
    """The template with a process on cluster primary for each of ODD_PROCESSES."""
    repo = template_copy(tmp)
    for name, (frequency, zone, start, end) in ODD_PROCESSES.items():
        (repo / "processes" / f"{name}.yaml").write_text(textwrap.dedent(f"""\
            kind: process
            name: {name}
            clusters:
              - name: primary
                validity:
                  start: {start}
                  end: {end or "2099-12-31T00:00Z"}
            frequency: {frequency}
            timezone: {zone}
            workflow:
              name: {name}
              engine: pyspark
              path: workflows/hourly_clicks_summary.py
            """), encoding="utf-8")
    return repo
