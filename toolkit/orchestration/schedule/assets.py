"""A feed on a cluster as an Airflow asset: the same name and URI in the generated DAGs' inlets and outlets and in
the asset events `toolkit trigger --notify airflow` posts, so that Airflow matches them; and whether that notifier
is on for a cluster.

The URI is the feed's OpenLineage dataset (toolkit/services/openlineage/naming.py) written as one URI: `hdfs://nn:8020/data/
clicks`, `file:///var/data/primary/data/clicks`, `s3://bucket/data/clicks`, `hive://metastore:9083/web.visits`.
The name is `<feed>@<cluster>`: one Airflow can serve several clusters, and the backup's copy of a feed is another
asset than the primary's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from toolkit.core.entities.model import Cluster, Feed
from toolkit.services.openlineage.naming import feed_dataset


@dataclass(frozen=True)
class FeedAsset:
    """The asset `name`, and its URI named when first read: naming imports OpenLineage's client (0.4 s), which a
    schedule of cron lines and `toolkit plan` never need. Assets compare by name: a feed on a cluster."""

    name: str
    feed: Feed = field(compare=False, repr=False)
    cluster: Cluster = field(compare=False, repr=False)

    @cached_property
    def uri(self) -> str:
        dataset = feed_dataset(self.feed, self.cluster)
        if dataset.namespace == "file":
            return "file://" + dataset.name
        return dataset.namespace.rstrip("/") + "/" + dataset.name.lstrip("/")


def feed_asset(feed: Feed, cluster: Cluster) -> FeedAsset:
    return FeedAsset(f"{feed.name}@{cluster.name}", feed, cluster)
