"""The `--format text` rendering of `toolkit instances`: one line per instance, for people."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


def _where(instance: Mapping[str, Any]) -> str:
    if "partition_spec" in instance:
        return f"{instance['database']}.{instance['table']} ({instance['partition_spec']})"
    return str(instance.get("path"))


def process_lines(resolved: Mapping[str, Any]) -> Iterator[str]:
    for cluster in resolved["clusters"]:
        yield f"process {resolved['process']} at {resolved['time']} on cluster {cluster['cluster']}"
        for item in cluster["inputs"]:
            optional = ", optional" if item["optional"] else ""
            header = f"  input  {item['name']} <- feed {item['feed']} [{item['start']} .. {item['end']}{optional}]"
            if item["instances"] is None:
                yield f"{header}: unresolved ({item['unresolved']})"
                continue
            yield f"{header}: {len(item['instances'])} instance(s)"
            for instance in item["instances"]:
                yield f"           {instance['time']}  {_where(instance)}"
        for item in cluster["outputs"]:
            instance = item["instance"]
            target = f"{instance['time']}  {_where(instance)}" if instance else "no instance"
            yield f"  output {item['name']} -> feed {item['feed']} [{item['expression']}]: {target}"


def feed_lines(described: Mapping[str, Any]) -> Iterator[str]:
    instances = described["instances"]
    yield (f"feed {described['feed']} on cluster {described['cluster']}, {described['from']} .. {described['to']}: "
           f"{len(instances)} instance(s)")
    for instance in instances:
        if "locations" in instance and len(instance["locations"]) > 1:
            where = "  ".join(f"{kind}={path}" for kind, path in instance["locations"].items())
        else:
            where = _where(instance)
        yield f"  {instance['time']}  {where}"
