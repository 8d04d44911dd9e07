"""A feed that asks to be told (`notification`) on a cluster whose notices go to a webhook: the setting every
test of an action's failure notice makes, with a real HTTP receiver on loopback (tests/lineage_receiver.py)."""

from __future__ import annotations

from pathlib import Path


def notify_by_webhook(repo: Path, cluster: str, feed: str, url: str) -> None:
    """The cluster `cluster` of the repo folder `repo` posts its notices to `url`; the feed `feed` asks for them.
    Both files get a top-level key they do not have yet (`properties`, `notification`)."""
    with (repo / "clusters" / f"{cluster}.yaml").open("a") as definition:
        definition.write(f"properties: {{notification.webhook.url: '{url}'}}\n")
    with (repo / "feeds" / f"{feed}.yaml").open("a") as definition:
        definition.write("notification: {to: data@example.com}\n")
