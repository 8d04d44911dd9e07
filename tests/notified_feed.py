"""A feed that asks to be told (`notification`) on a cluster whose notices go to a webhook: the setting every
test of an action's failure notice makes, with a real HTTP receiver on loopback (tests/lineage_receiver.py)."""

from __future__ import annotations

from pathlib import Path


def notify_by_webhook(repo: Path, cluster: str, feed: str, url: str) -> None:
    """The cluster `cluster` of the repo folder `repo` posts its notices to `url` (added to its block of
    `properties`, or as one); the feed `feed`, which has no `notification` yet, asks for them."""
    definition = repo / "clusters" / f"{cluster}.yaml"
    text = definition.read_text()
    setting = f"notification.webhook.url: '{url}'"
    if "\nproperties:\n" in text:
        definition.write_text(text.replace("\nproperties:\n", f"\nproperties:\n  {setting}\n", 1))
    else:
        definition.write_text(text + f"properties: {{{setting}}}\n")
    with (repo / "feeds" / f"{feed}.yaml").open("a") as feed_definition:
        feed_definition.write("notification: {to: data@example.com}\n")
