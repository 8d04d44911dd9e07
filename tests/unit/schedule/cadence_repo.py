"""A small config repo whose processes and feeds have the cadences cron cannot say exactly (minutes(7), hours(5),
months(5), a start on the 31st), one it can (months(2) from the 15th, daily in Europe/Paris), a replicated feed
with a delay and short and long retention limits."""

from __future__ import annotations

from pathlib import Path

from tests.local_cluster import local_cluster_yaml

LOCATIONS = {"staging": "/staging", "temp": "/tmp", "working": "/working"}

FEED = """kind: feed
name: {name}
frequency: {frequency}
timezone: {zone}
clusters:
  - name: main
    type: source
    validity: {{start: "{start}", end: "2099-01-01T00:00Z"}}
    retention: {{limit: "{limit}", action: delete}}
{extra}locations:
  data: /data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}/${{MINUTE}}
"""

REPLICA = """  - name: backup
    type: target
    delay: hours(2)
    validity: {start: "2026-01-01T00:30Z", end: "2099-01-01T00:00Z"}
    retention: {limit: "months(12)", action: delete}
    locations:
      data: /replica/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}
"""

PROCESS = """kind: process
name: {name}
clusters:
  - name: main
    validity: {{start: "{start}", end: "2099-01-01T00:00Z"}}
frequency: {frequency}
timezone: {zone}
inputs:
  - {{name: input, feed: {feed}, start: "now(0,0)", end: "now(0,0)"}}
outputs:
  - {{name: output, feed: {output}, instance: "now(0,0)"}}
workflow: {{engine: pyspark, path: workflows/noop.py}}
"""

# name: (frequency, zone, validity start)
PROCESSES = {
    "every-7-minutes": ("minutes(7)", "UTC", "2026-01-01T00:03Z"),
    "every-5-hours": ("hours(5)", "UTC", "2026-01-01T01:00Z"),
    "every-2-months": ("months(2)", "UTC", "2026-01-15T06:00Z"),
    "every-5-months": ("months(5)", "UTC", "2026-01-15T06:00Z"),
    "month-end": ("months(1)", "UTC", "2026-01-31T00:00Z"),
    "paris-daily": ("days(1)", "Europe/Paris", "2026-01-01T05:30Z"),
}


def make_cadence_repo(tmp: Path) -> Path:
    repo = tmp / "conf"
    for folder in ("clusters", "feeds", "processes", "workflows"):
        (repo / folder).mkdir(parents=True)
    for name in ("main", "backup"):
        (repo / "clusters" / f"{name}.yaml").write_text(local_cluster_yaml(tmp / name, name, locations=LOCATIONS))
    (repo / "feeds" / "minutes.yaml").write_text(FEED.format(
        name="minutes", frequency="minutes(1)", zone="UTC", start="2026-01-01T00:00Z", limit="hours(12)",
        extra=REPLICA))
    (repo / "feeds" / "out.yaml").write_text(FEED.format(
        name="out", frequency="minutes(1)", zone="UTC", start="2026-01-01T00:00Z", limit="days(30)", extra=""))
    (repo / "workflows" / "noop.py").write_text("def run(spark, ctx):\n    pass\n")
    for name, (frequency, zone, start) in PROCESSES.items():
        (repo / "processes" / f"{name}.yaml").write_text(PROCESS.format(
            name=name, frequency=frequency, zone=zone, start=start, feed="minutes", output="out"))
    return repo
