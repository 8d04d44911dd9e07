"""A cluster (and an hourly feed) for tests whose file system is a local folder: the YAML the tests of the sweep, the
schedule and the Airflow notifier write into their temporary config repos."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path


def local_cluster_yaml(root: Path, name: str = "primary", properties: Mapping[str, str] | None = None,
                       locations: Mapping[str, str] | None = None) -> str:
    """Cluster `name` rooted at `root` (its readonly and write endpoints), Spark local[1], working at /working."""
    endpoint = json.dumps(f"file://{root}")
    lines = ["kind: cluster", f"name: {name}", "interfaces:",
             f'  readonly: {{endpoint: {endpoint}, version: "3.4"}}',
             f'  write: {{endpoint: {endpoint}, version: "3.4"}}',
             '  execute: {endpoint: "local[1]", version: "4.0"}',
             '  workflow: {endpoint: "cron://localhost", version: "1.0"}',
             "locations:",
             *(f"  {key}: {value}" for key, value in (locations or {"working": "/working"}).items())]
    if properties:
        lines += ["properties:", *(f"  {key}: {json.dumps(value)}" for key, value in properties.items())]
    return "\n".join(lines) + "\n"


def hourly_feed_yaml(name: str, cluster: str = "primary") -> str:
    """An hourly feed sourced on `cluster` since 2026-01-01, its data at /data/<name>/YYYY/MM/DD/HH."""
    return (f"kind: feed\nname: {name}\nfrequency: hours(1)\nclusters:\n  - name: {cluster}\n    type: source\n"
            "    validity: {start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}\nlocations:\n"
            f"  data: /data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}\n")
