"""Whether lineage is on for a call, and how the client is configured.

The client's own configuration turns it on: `OPENLINEAGE_URL`, `OPENLINEAGE_CONFIG` or an `openlineage.yml` (in the
working directory or `~/.openlineage/`), `OPENLINEAGE__...` variables; or the cluster's properties `openlineage.*`
(`openlineage.transport.type: http` is the client's `transport: {type: http}`). Without any of them nothing is
sent and nothing is kept (the client alone would print to the console). `OPENLINEAGE_DISABLED=true` turns it off.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit.core.entities.model import Cluster
from toolkit.errors import UsageError

PREFIX = "openlineage."
NAMESPACE_PROPERTY = "openlineage.namespace"


@dataclass(frozen=True)
class LineageSettings:
    """`config` is what the cluster's properties give the client (the client merges its own sources below it);
    `namespace` is the job namespace of the cluster's runs."""

    namespace: str
    config: Mapping[str, Any] = field(default_factory=dict)


def lineage_settings(cluster: Cluster, environ: Mapping[str, str] | None = None,
                     cwd: Path | None = None) -> LineageSettings | None:
    """The settings of a run on `cluster`, or None when lineage is not configured (or disabled)."""
    env = os.environ if environ is None else environ
    if env.get("OPENLINEAGE_DISABLED", "").strip().lower() == "true":
        return None
    config = _from_properties(cluster)
    if not config and not _client_configured(env, cwd or Path.cwd()):
        return None
    namespace = (cluster.properties.get(NAMESPACE_PROPERTY) or env.get("OPENLINEAGE_NAMESPACE")
                 or f"feed-toolkit.{cluster.name}")
    return LineageSettings(namespace, config)


def _client_configured(env: Mapping[str, str], cwd: Path) -> bool:
    """The client's own sources, checked as the client reads them (openlineage.client.client)."""
    if env.get("OPENLINEAGE_URL") or any(name.startswith("OPENLINEAGE__") for name in env):
        return True
    given = env.get("OPENLINEAGE_CONFIG")
    files = [Path(given)] if given else []
    files += [cwd / "openlineage.yml", Path.home() / ".openlineage" / "openlineage.yml"]
    return any(path.is_file() for path in files)


def _from_properties(cluster: Cluster) -> dict[str, Any]:
    """`openlineage.transport.url: X` -> {"transport": {"url": X}}; the namespace property is the toolkit's own."""
    config: dict[str, Any] = {}
    for name, value in sorted(cluster.properties.items()):
        if not name.startswith(PREFIX) or name == NAMESPACE_PROPERTY:
            continue
        keys = name[len(PREFIX):].split(".")
        if not all(keys):
            raise UsageError(f"The property {name!r} of cluster '{cluster.name}' has an empty part: write "
                             "openlineage.<key>.<key> as the client's configuration nests them.")
        node = config
        for key in keys[:-1]:
            child = node.setdefault(key, {})
            if not isinstance(child, dict):
                raise UsageError(f"The properties of cluster '{cluster.name}' give 'openlineage.{key}' both a value "
                                 f"and keys below it ({name!r}): keep one.")
            node = child
        if isinstance(node.get(keys[-1]), dict):
            raise UsageError(f"The properties of cluster '{cluster.name}' give {name!r} both a value and keys below "
                             "it: keep one.")
        node[keys[-1]] = value
    return config
