"""Helpers of the ledger tests: a clock whose time the test sets, and clusters loaded from small YAML files."""

from __future__ import annotations

import textwrap
from pathlib import Path

from toolkit.core.entities.model import Cluster
from toolkit.core.entities.repo import ConfigRepo


class SetClock:
    """Real seconds since the epoch, as the test sets them (`clock.now = ...`, `clock.advance(...)`)."""

    def __init__(self, now: float = 1_790_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def cluster_yaml(name: str, endpoint: str | None, locations: dict[str, str]) -> str:
    """A minimal cluster: its write interface at `endpoint` (none when None) and the given locations."""
    interface = "write" if endpoint is not None else "readonly"
    lines = [f"{key}: {value}" for key, value in locations.items()]
    return textwrap.dedent(f"""\
        kind: cluster
        name: {name}
        interfaces:
          {interface}: {{endpoint: "{endpoint or 'file:///elsewhere'}", version: "3.4"}}
        locations: {{{', '.join(lines)}}}
        """)


def load_clusters(folder: Path, clusters: dict[str, str]) -> ConfigRepo:
    """A config repo in `folder` holding only the given cluster YAML texts (by name)."""
    (folder / "clusters").mkdir(parents=True)
    for name, text in clusters.items():
        (folder / "clusters" / f"{name}.yaml").write_text(text)
    return ConfigRepo.load(folder)


def local_cluster(folder: Path, root: Path, working: str = "/feed-toolkit/working") -> Cluster:
    """The cluster `primary` whose file system root is the local folder `root`."""
    repo = load_clusters(folder, {"primary": cluster_yaml("primary", f"file://{root}", {"working": working})})
    return repo.cluster("primary")
