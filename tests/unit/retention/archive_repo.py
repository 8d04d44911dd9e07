"""The retention test repo with clicks archived on primary: `action: archive`, and the cluster's `archive`
location; helpers that read a tree's files with their bytes."""

from __future__ import annotations

from pathlib import Path

from tests.unit.retention.retention_repo import make_repo


def make_archive_repo(tmp: Path, action: str = "archive", archive: str | None = "/archive") -> tuple[Path, Path]:
    """(the repo, primary's root): clicks' retention on primary has `action`; primary has `archive` (or not)."""
    repo, root = make_repo(tmp)
    feed = repo / "feeds" / "clicks.yaml"
    feed.write_text(feed.read_text().replace("action: delete", f"action: {action}", 1))
    if archive is not None:
        cluster = repo / "clusters" / "primary.yaml"
        cluster.write_text(cluster.read_text().replace("  working: /feed-toolkit/working\n",
                                                       f"  working: /feed-toolkit/working\n  archive: {archive}\n"))
    return repo, root


def contents(root: Path, below: str = "") -> dict[str, bytes]:
    """Every file below `root/below` by its path relative to `root/below`, with its bytes."""
    top = root / below
    return {str(p.relative_to(top)): p.read_bytes() for p in top.rglob("*") if p.is_file()} if top.exists() else {}
