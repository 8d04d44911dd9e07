"""The files of a new config repo, as `toolkit init` writes them (commands/init.py): one cluster, a feed of raw
events, an hourly process counting them with a SQL workflow into a second feed, the pre-commit hook and a README of
next steps. `{cluster}` and `{root}` are filled in, with the root's path and readonly endpoint derived from it, once
`values.py` has checked them; the files lint clean (tests/unit/cli/test_init.py)."""

from __future__ import annotations

from importlib import resources
from urllib.parse import urlsplit

from toolkit.cli.skeleton.values import check_cluster, check_root

# Each file's path in the new repo, and the name of its text beside this module.
FILES = {
    "clusters/{cluster}.yaml": "cluster.yaml",
    "feeds/events.yaml": "events.yaml",
    "feeds/event-counts.yaml": "event-counts.yaml",
    "processes/hourly-event-counts.yaml": "hourly-event-counts.yaml",
    "workflows/hourly_event_counts.sql": "hourly_event_counts.sql",
    ".pre-commit-config.yaml": "pre-commit-config.yaml",
    "README.md": "README.md",
}


def files(cluster: str, root: str) -> dict[str, str]:
    """The new repo's files by relative path, with the cluster's name and its root URI; UsageError naming the option
    when either cannot go into them as it is."""
    check_cluster(cluster)
    check_root(root)
    folder = resources.files(__name__)
    parts = urlsplit(root)
    # The namenode's WebHDFS at Hadoop's default HTTP port, for an hdfs:// root; the root itself otherwise.
    readonly = f"webhdfs://{parts.hostname}:9870" if parts.scheme == "hdfs" and parts.hostname else root
    return {path.format(cluster=cluster): (folder / name).read_text(encoding="utf-8")
            .replace("{cluster}", cluster).replace("{root_path}", parts.path or "/")
            .replace("{readonly}", readonly).replace("{root}", root)
            for path, name in FILES.items()}
