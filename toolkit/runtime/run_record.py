"""The record of an action's run: one JSON file under the cluster's working location
(`<working>/<action>/<feed>/<yyyyMMddTHHmmZ>.json`), written atomically, so what ran can be read back
from the cluster's own file system."""

from __future__ import annotations

import json
from datetime import datetime

from toolkit.entities.model import Cluster
from toolkit.instances.feed_locations import under_root
from toolkit.storage.filesystem import FileSystem


def record_path(cluster: Cluster, action: str, feed: str, t: datetime) -> str:
    """Under `working` (or `staging` when the cluster has no working location); ':' is not allowed in HDFS names."""
    folder = cluster.location("working") or cluster.location("staging") or "/feed-toolkit/working"
    name = f"{t:%Y%m%dT%H%MZ}.json"
    return under_root(cluster.write_endpoint or "", f"{folder.rstrip('/')}/{action}/{feed}/{name}")


def write_record(fs: FileSystem, path: str, record: dict[str, object]) -> None:
    fs.write_atomically(path, (json.dumps(record, indent=2, sort_keys=True) + "\n").encode())
