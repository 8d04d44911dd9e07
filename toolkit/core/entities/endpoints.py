"""The forms a cluster interface's endpoint may take, beyond a URI with a scheme.

Falcon wrote the execute interface as the job tracker's or resource manager's `host:port` (`localhost:8021`), the
workflow interface of its embedded Oozie as `localoozie`, and its spark interface as a Spark master, which may be
`yarn`, `local[*]` or Falcon's Spark 1 spellings `yarn-client` and `yarn-cluster`. Imports no Spark.
"""

from __future__ import annotations

import ipaddress
import re

URI_WITH_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://\S*$")
LOCAL_OOZIE = "localoozie"
# Spark's local masters: local, local[4], local[*], local[4,2] (retries), local-cluster[2,1,1024]
_LOCAL_MASTER = re.compile(r"^local(\[(\*|[1-9][0-9]*)(,[1-9][0-9]*)?\])?$|^local-cluster\[[0-9]+(,[0-9]+){2}\]$")
_YARN_MASTERS = frozenset({"yarn", "yarn-client", "yarn-cluster"})
_HOST_LABEL = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")
_PORT = re.compile(r"^[0-9]{1,5}$")


def is_uri(endpoint: str) -> bool:
    """`scheme://...` with no blank in it."""
    return bool(URI_WITH_SCHEME.match(endpoint))


def is_spark_master(endpoint: str) -> bool:
    """What `spark-submit --master` takes (a URI such as spark://host:7077 or k8s://https://host:6443, yarn,
    local[...]) and Falcon's `yarn-client` / `yarn-cluster`, which Spark 2 replaced by yarn and a deploy mode."""
    return is_uri(endpoint) or endpoint in _YARN_MASTERS or bool(_LOCAL_MASTER.match(endpoint))


def is_host_port(endpoint: str) -> bool:
    """`host:port` with a DNS name, an IPv4 address or a bracketed IPv6 address, and a port from 1 to 65535."""
    host, separator, port = endpoint.rpartition(":")
    if not separator or not _PORT.match(port) or not 1 <= int(port) <= 65535:
        return False
    if host.startswith("[") and host.endswith("]"):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return False
        return True
    labels = host.split(".")
    return bool(host) and len(host) <= 253 and all(_HOST_LABEL.match(label) for label in labels)
