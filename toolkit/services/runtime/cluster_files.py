"""A cluster's file system without Spark: the pure-Python `LocalFileSystem` for a `file://` write endpoint, HDFS
through WebHDFS at the cluster's `readonly` interface (`hdfs://`, `webhdfs://`, `swebhdfs://`;
toolkit/core/storage/webhdfs.py, settings in toolkit/core/entities/webhdfs_access.py). Any other file system needs the
Hadoop client in a Spark JVM: asked for here, it is a usage error naming the cluster. The `toolkit` command reads
ledgers this way, and retention of a file feed runs this way (no JVM where Spark has nothing to do)."""

from __future__ import annotations

from urllib.parse import urlsplit

from toolkit.core.entities.model import Cluster
from toolkit.core.entities.webhdfs_access import is_webhdfs_cluster, webhdfs_access
from toolkit.core.storage.filesystem import FileSystem, StorageError
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import UsageError


def reachable_without_jvm(cluster: Cluster) -> bool:
    """Whether `cluster_file_system` reaches this cluster: a `file://` root, or HDFS with a WebHDFS address."""
    if urlsplit(cluster.write_endpoint or "").scheme.lower() == "file":
        return True
    try:
        return is_webhdfs_cluster(cluster) and webhdfs_access(cluster) is not None
    except ValueError:
        return False


def cluster_file_system(cluster: Cluster) -> FileSystem:
    """The cluster's file system: local (`file://`) or HDFS through WebHDFS, else a UsageError naming the cluster."""
    endpoint = cluster.write_endpoint
    if endpoint is None:
        raise UsageError(f"The cluster '{cluster.name}' has no write interface: add interfaces.write.endpoint, the "
                         "root of its file system, where the toolkit keeps its ledger.")
    scheme = urlsplit(endpoint).scheme.lower()
    if scheme == "file":
        return LocalFileSystem()
    if is_webhdfs_cluster(cluster):
        try:
            access = webhdfs_access(cluster)
        except ValueError as err:
            raise UsageError(str(err)) from None
        from toolkit.core.storage.webhdfs import connect  # requests and the hdfs client load for HDFS clusters only

        try:
            return connect(endpoint, access.url, access.user, access.kerberos)
        except StorageError as err:
            raise UsageError(str(err)) from None
    where = f"on {scheme}://" if scheme else f"at {endpoint!r} (no scheme)"
    raise UsageError(f"The command line cannot read the ledger of cluster '{cluster.name}' {where}: it reads "
                     "clusters whose write endpoint is file:// or hdfs:// (through WebHDFS at the readonly "
                     "interface); run the Spark entrypoints for other file systems.")
