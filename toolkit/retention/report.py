"""The record of a retention run: a JSON file per run under the cluster's working location
(`retention/<feed>/<yyyyMMddTHHmmZ>.json`), written atomically."""

from __future__ import annotations

import json
from datetime import datetime

from toolkit.entities.model import Cluster
from toolkit.instances.feed_locations import under_root
from toolkit.storage.filesystem import FileSystem


def report_path(cluster: Cluster, feed: str, nominal: datetime) -> str:
    """Under `working` (or `staging` when the cluster has no working location); ':' is not allowed in HDFS names."""
    folder = cluster.location("working") or cluster.location("staging") or "/feed-toolkit/working"
    name = f"{nominal:%Y%m%dT%H%MZ}.json"
    return under_root(cluster.write_endpoint or "", f"{folder.rstrip('/')}/retention/{feed}/{name}")


def write_report(fs: FileSystem, path: str, report: dict[str, object]) -> None:
    fs.write_atomically(path, (json.dumps(report, indent=2, sort_keys=True) + "\n").encode())
