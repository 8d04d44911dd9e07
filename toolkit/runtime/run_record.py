"""The record of an action's run: one JSON file under the cluster's working location
(`<working>/<action>/<feed>/<yyyyMMddTHHmmZ>.json`), written atomically, so what ran can be read back
from the cluster's own file system."""

from __future__ import annotations

import json
from datetime import datetime

from toolkit.el.timestamps import instance_key
from toolkit.entities.model import Cluster
from toolkit.ledger.layout import working_root
from toolkit.ledger.records import versioned
from toolkit.storage.filesystem import FileSystem


def record_folder(cluster: Cluster, action: str, feed: str) -> str:
    """Under `working` (or `staging` when the cluster has no working location): one folder per action and feed."""
    return f"{working_root(cluster)}/{action}/{feed}"


def record_path(cluster: Cluster, action: str, feed: str, t: datetime) -> str:
    """Named by the instance key: ':' is not allowed in HDFS names."""
    return f"{record_folder(cluster, action, feed)}/{instance_key(t)}.json"


def write_record(fs: FileSystem, path: str, record: dict[str, object]) -> None:
    """With the ledger's record format version, so that a later toolkit knows how to read it."""
    fs.write_atomically(path, (json.dumps(versioned(record), indent=2, sort_keys=True) + "\n").encode())
