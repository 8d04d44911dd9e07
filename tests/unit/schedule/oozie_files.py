"""`toolkit schedule --format oozie` as the schedule tests call it: the paths a scheduler host would have."""

from __future__ import annotations

from pathlib import Path

from toolkit.cli.main import main

PATHS = ["--toolkit", "/opt/feed-toolkit/bin/toolkit", "--spark-submit", "/opt/spark/bin/spark-submit",
         "--entrypoints", "/opt/feed-toolkit/entrypoints", "--repo-path", "/srv/conf"]


def schedule(repo: Path, out: Path, *extra: str, cluster: str = "primary") -> int:
    """The Oozie files of `repo`'s `cluster` written into `out`; the command's exit code."""
    return main(["schedule", "--repo", str(repo), "--cluster", cluster, "--format", "oozie", "--out", str(out),
                 *PATHS, *extra])
