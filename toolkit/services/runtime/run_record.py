"""The record of an action's run: one JSON file under the cluster's working location
(`<working>/<action>/<feed>/<yyyyMMddTHHmmZ>.json`), written atomically, so what ran can be read back
from the cluster's own file system."""

from __future__ import annotations

import json
from datetime import datetime

from toolkit.core.el.timestamps import instance_key
from toolkit.core.entities.model import Cluster
from toolkit.core.ledger.layout import working_root
from toolkit.core.ledger.records import record_document
from toolkit.core.storage.filesystem import FileSystem


def record_folder(cluster: Cluster, action: str, feed: str) -> str:
    """Under `working` (or `staging` when the cluster has no working location): one folder per action and feed."""
    return f"{working_root(cluster)}/{action}/{feed}"


def record_path(cluster: Cluster, action: str, feed: str, t: datetime) -> str:
    """Named by the instance key: ':' is not allowed in HDFS names."""
    return f"{record_folder(cluster, action, feed)}/{instance_key(t)}.json"


def write_record(fs: FileSystem, path: str, record: object) -> None:
    """A run's record (a record class of the action's: toolkit/core/ledger/retention_runs.py), with the ledger's record
    format version, so that a later toolkit knows how to read it."""
    fs.write_atomically(path, record_text(record_document(record)).encode())


_ENCODE = json.JSONEncoder(sort_keys=True).encode  # without indent, the standard library encodes in C


def record_text(record: dict[str, object]) -> str:
    """JSON with one field per line and one item of a list per line (one evicted instance, one copied file), the
    fields sorted. A retention run's record lists tens of thousands of instances: `json.dumps(indent=2)` encodes in
    pure Python, a second per 20,000 instances, and spreads each over six lines."""
    fields = []
    for key, value in sorted(record.items()):
        if isinstance(value, list) and value:
            items = ",\n    ".join(map(_ENCODE, value))
            fields.append(f"  {_ENCODE(key)}: [\n    {items}\n  ]")
        else:
            fields.append(f"  {_ENCODE(key)}: {_ENCODE(value)}")
    return "{\n" + ",\n".join(fields) + "\n}\n"
