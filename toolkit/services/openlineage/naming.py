"""Names by OpenLineage's naming spec (https://openlineage.io/docs/spec/naming), through the client's own
`openlineage.client.naming.dataset` classes.

- A job is `<action>.<entity>` (`process.hourly-clicks-summary`, `replication.clicks`) in the cluster's job
  namespace (settings.py): stable, and the same for every attempt and instance.
- A feed on a cluster is one dataset: a file feed is its data location cut before the first date variable, under
  the cluster's file system (`hdfs://nn:8020` + `/data/clicks`, `file` + `/var/data/primary/data/clicks`,
  `s3://bucket` + `data/clicks`); a table feed is `hive://<metastore host:port>` + `db.table` (a cluster without a
  metastore address, on Spark's embedded catalog, is `hive://<cluster name>`).
- A feed instance is a subset of its dataset (events.py): its location, or its table partition.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from urllib.parse import urlsplit

from toolkit.core.el.templates import CatalogTemplate
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.instances.feed_locations import under_root
from toolkit.errors import UsageError
from toolkit.secrets_masking import without_user_info
from toolkit.uris import normalize_uri


@dataclass(frozen=True)
class DatasetName:
    namespace: str
    name: str


@dataclass(frozen=True)
class JobName:
    namespace: str
    name: str


def job_name(namespace: str, action: str, entity: str) -> JobName:
    return JobName(namespace, f"{action}.{entity}")


def instance_run_id(job: JobName, instance: str) -> str:
    """The parent run of every attempt at one instance (`instance` is its time, or a batch's name): the same
    UUID whichever run computes it, so a backend groups the attempts."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"feed-toolkit:{job.namespace}/{job.name}/{instance}"))


def feed_dataset(feed: Feed, cluster: Cluster) -> DatasetName:
    """The dataset that stands for `feed` on `cluster`."""
    table = feed.table_on(cluster.name)
    if table is not None:
        return table_dataset(CatalogTemplate(table), cluster)
    root = cluster.write_endpoint or "file:///"
    path = feed.locations_on(cluster.name)["data"]
    static = path[:path.index("${")] if "${" in path else path
    return path_dataset(under_root(root, static.rstrip("/") or "/"))


def table_dataset(table: CatalogTemplate, cluster: Cluster) -> DatasetName:
    from openlineage.client.naming.dataset import Hive

    endpoint = urlsplit(without_user_info(cluster.registry_endpoint or ""))
    host, port = endpoint.hostname or cluster.name, _port(endpoint.netloc)
    if port is None:
        raise UsageError(f"The registry endpoint of cluster '{cluster.name}' has port "
                         f"'{endpoint.netloc.rpartition(':')[2]}', no number: write it "
                         "`thrift://host:port` (interfaces.registry.endpoint).")
    if not port:  # the client's Hive naming needs both; an embedded catalog has neither
        return DatasetName(f"hive://{host}", f"{table.database}.{table.table}")
    naming = Hive(host=host, port=port, database=table.database, table=table.table)
    return DatasetName(naming.get_namespace(), naming.get_name())


def path_dataset(uri: str) -> DatasetName:
    """A file system URI as OpenLineage names it."""
    from openlineage.client.naming import dataset as naming

    parts = urlsplit(without_user_info(normalize_uri(uri)))  # a user or a password is no part of a name
    scheme, path = parts.scheme.lower(), parts.path or "/"
    found: naming.DatasetNaming
    if scheme in ("", "file"):
        found = naming.LocalFileSystem(path=path)
    elif scheme == "hdfs" and parts.hostname and _port(parts.netloc):
        found = naming.HDFS(namenode_host=parts.hostname, namenode_port=str(_port(parts.netloc)), path=path)
    elif scheme in ("s3", "s3a", "s3n") and parts.netloc:
        found = naming.S3(bucket_name=parts.netloc, object_key=path.lstrip("/") or "/")
    elif scheme == "gs" and parts.netloc:
        found = naming.GCS(bucket_name=parts.netloc, object_key=path.lstrip("/") or "/")
    else:
        return DatasetName(f"{scheme}://{parts.netloc}", path)
    return DatasetName(found.get_namespace(), found.get_name())


def _port(netloc: str) -> str | None:
    """The port of a URL's `host:port` ("" when it has none, None when it is no number): urllib's `.port` raises."""
    address = netloc.rpartition("@")[2]
    port = address.rpartition("]")[2].partition(":")[2] if address.startswith("[") else address.partition(":")[2]
    return port if port.isdigit() or not port else None
