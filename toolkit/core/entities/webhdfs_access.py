"""How the command line reaches an HDFS cluster without a JVM: the WebHDFS address of its `readonly` interface and
its `webhdfs.*` properties, read and checked here (pure string work; lint rule CL008 and the CLI share it).

Falcon's readonly interface was the namenode's HFTP address; WebHDFS replaced HFTP (removed in Hadoop 3) and is
served at the same namenode HTTP address: `webhdfs://namenode:9870` (HTTP), `swebhdfs://namenode:9871`
(HTTPS), or the same as `http(s)://host:port`.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from toolkit.core.entities.model import Cluster
from toolkit.secrets_masking import masked

USER_PROPERTY = "webhdfs.user"
AUTH_PROPERTY = "webhdfs.auth"
AUTH_MODES = ("simple", "kerberos")
# Hadoop 3's namenode HTTP and HTTPS ports (dfs.namenode.http-address, dfs.namenode.https-address).
_DEFAULT_PORTS = {"webhdfs": 9870, "swebhdfs": 9871, "http": 80, "https": 443}
_HTTP_SCHEMES = {"webhdfs": "http", "swebhdfs": "https", "http": "http", "https": "https"}
# File systems whose ledger the command line reads through WebHDFS at the readonly interface.
WEBHDFS_FILE_SYSTEMS = frozenset({"hdfs", "webhdfs", "swebhdfs"})


@dataclass(frozen=True)
class WebHdfsAccess:
    """Where and as whom the command line talks WebHDFS to a cluster: `url` is `http(s)://host:port`."""

    url: str
    user: str | None  # None: the login user (simple authentication only)
    kerberos: bool


def is_webhdfs_cluster(cluster: Cluster) -> bool:
    """Whether the cluster's file system (its write endpoint) is one the command line reaches through WebHDFS."""
    return urlsplit(cluster.write_endpoint or "").scheme.lower() in WEBHDFS_FILE_SYSTEMS


def address_problem(endpoint: str) -> str | None:
    """Why `endpoint` cannot be a WebHDFS address (a sentence's end, after the endpoint is named), or None."""
    parts = urlsplit(endpoint)
    scheme = parts.scheme.lower()
    if scheme not in _HTTP_SCHEMES:
        return ("is not a WebHDFS address; the command line reads this cluster's ledger through WebHDFS at the "
                "readonly interface: write the namenode's HTTP address, e.g. webhdfs://namenode:9870 (swebhdfs:// "
                "or https:// for HTTPS).")
    try:
        port = parts.port
    except ValueError:
        port = -1
    if not parts.hostname or port == -1:
        return "has no valid host and port; write it as webhdfs://namenode:9870."
    if parts.username is not None or parts.password is not None:
        return ("holds a user name or password; give the user as the cluster property webhdfs.user (never a "
                "password: use webhdfs.auth: kerberos).")
    if parts.path not in ("", "/", "/webhdfs/v1", "/webhdfs/v1/") or parts.query or parts.fragment:
        return "has a path, query or fragment; write only scheme://host:port, e.g. webhdfs://namenode:9870."
    return None


def settings_problems(cluster: Cluster) -> list[tuple[str, str]]:
    """(property name, what is wrong) for each `webhdfs.*` property that cannot work."""
    found = []
    auth = cluster.properties.get(AUTH_PROPERTY)
    if auth is not None and auth.strip().lower() not in AUTH_MODES:
        found.append((AUTH_PROPERTY, f"{AUTH_PROPERTY} {auth!r} is not one of {', '.join(AUTH_MODES)}."))
    user = cluster.properties.get(USER_PROPERTY)
    if user is not None and (not user.strip() or any(char.isspace() for char in user.strip())):
        found.append((USER_PROPERTY, f"{USER_PROPERTY} {user!r} is not a user name (empty or with blanks)."))
    return found


def webhdfs_access(cluster: Cluster) -> WebHdfsAccess:
    """The cluster's WebHDFS access; ValueError with one sentence naming the cluster and the field to fix."""
    readonly = cluster.interface("readonly")
    if readonly is None:
        raise ValueError(f"The cluster '{cluster.name}' has no readonly interface: the command line reads its ledger "
                         "through WebHDFS there; add interfaces.readonly.endpoint, e.g. webhdfs://namenode:9870.")
    problem = address_problem(readonly.endpoint)
    if problem is not None:
        raise ValueError(f"The cluster '{cluster.name}' interfaces.readonly.endpoint {masked(readonly.endpoint)!r} "
                         f"{problem}")
    for _, what in settings_problems(cluster):
        raise ValueError(f"The cluster '{cluster.name}' property {what[:1].lower()}{what[1:]}")
    parts = urlsplit(readonly.endpoint)
    scheme = parts.scheme.lower()
    host = f"[{parts.hostname}]" if ":" in (parts.hostname or "") else parts.hostname
    url = f"{_HTTP_SCHEMES[scheme]}://{host}:{parts.port or _DEFAULT_PORTS[scheme]}"
    kerberos = cluster.properties.get(AUTH_PROPERTY, "simple").strip().lower() == "kerberos"
    user = cluster.properties.get(USER_PROPERTY)
    return WebHdfsAccess(url, user.strip() if user else None, kerberos)
