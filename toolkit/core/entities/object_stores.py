"""Object stores are refused: the ledger's locks need an exclusive create that fails when the file exists, and
publishing needs a rename that moves a folder into place in one step. S3, Azure Blob/ADLS, Google Cloud
Storage and OSS give neither by default (a rename is a copy then a delete, visible half done; a create does
not fail on a concurrent one), so two runs could both hold a lock and readers could see half an instance.
A cluster whose endpoints or locations are on one is a lint error (CL006) and exit 2 in every action, before
anything is touched."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolkit.core.entities.model import Cluster
from toolkit.errors import UsageError

# Scheme -> the store's name, as the sentences say it.
OBJECT_STORES = {
    "s3a": "Amazon S3 (the S3A connector)",
    "s3": "Amazon S3",
    "s3n": "Amazon S3 (the old S3N connector)",
    "abfs": "Azure Data Lake Storage Gen2",
    "abfss": "Azure Data Lake Storage Gen2 (TLS)",
    "wasb": "Azure Blob Storage",
    "wasbs": "Azure Blob Storage (TLS)",
    "gs": "Google Cloud Storage",
    "oss": "Alibaba Cloud OSS",
}
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
WHY = ("an object store has no atomic create-if-absent for the toolkit's locks and no atomic rename for "
       "publishing (a rename there is a copy then a delete), so two runs could both hold a lock and readers "
       "could see half an instance")


def object_store(uri: str) -> str | None:
    """The object store `uri` is on (its name), or None for any other file system."""
    found = _SCHEME.match(uri.strip())
    return OBJECT_STORES.get(found.group(1).lower()) if found else None


def uri_problem(uri: str, what: str) -> str | None:
    """One sentence refusing `uri` when it is on an object store, else None; `what` names it, the URI included
    (`The interfaces.write.endpoint 's3a://lake' of cluster 'lake'`)."""
    store = object_store(uri)
    if store is None:
        return None
    scheme = uri.strip().split(":", 1)[0].lower()
    return (f"{what} is on {store} ({scheme}://), which the toolkit refuses because {WHY}; put it on "
            "HDFS (hdfs://) or a local or mounted file system (file://).")


def cluster_problems(cluster: Cluster) -> Iterator[tuple[tuple[str, ...], str]]:
    """(field path, sentence) for each endpoint or location URI of `cluster` on an object store."""
    for name, interface in cluster.interfaces.items():
        problem = uri_problem(interface.endpoint, f"The interfaces.{name}.endpoint {interface.endpoint!r} of "
                                                  f"cluster '{cluster.name}'")
        if problem:
            yield ("interfaces", name, "endpoint"), problem
    for name, location in cluster.locations.items():
        problem = uri_problem(location, f"The locations.{name} {location!r} of cluster '{cluster.name}'")
        if problem:
            yield ("locations", name), problem


def require_no_object_store(*clusters: Cluster) -> None:
    """Exit 2 (UsageError) when any of `clusters` is on an object store; called before anything is touched."""
    for cluster in clusters:
        for _, problem in cluster_problems(cluster):
            raise UsageError(problem)


def require_no_object_store_uri(uri: str, what: str) -> None:
    """Exit 2 (UsageError) when a directory (a command-line argument, an archive location) is on an object store;
    `what` names it, without the URI."""
    problem = uri_problem(uri, f"{what} {uri!r}")
    if problem:
        raise UsageError(problem)
