"""How the `oozie` and `pig` engines reach a cluster's Oozie server: the URL of its `workflow` interface and the
cluster's `oozie.client.*` properties, read and checked here (pure string work; lint PR014 and the engines share it).

Falcon's cluster named its Oozie server in the `workflow` interface (`http://oozie:11000/oozie`) and handed every
process workflow to it; so do these engines. Properties (none is sent to Oozie in the job configuration):
- `oozie.client.user`: the `user.name` jobs are submitted as (default: the login user; simple authentication);
- `oozie.client.auth`: `simple` (default) or `kerberos` (SPNEGO, a ticket from the cache, `kinit`; the cluster
  property `hadoop.security.authentication: kerberos` implies it);
- `oozie.client.ca-file`: the CA certificates that an `https://` Oozie's certificate is verified with (default:
  the system's);
- `oozie.client.poll-seconds`: how often a running job's status is asked (default 10).
"""

from __future__ import annotations

import getpass
from dataclasses import dataclass
from urllib.parse import urlsplit

from toolkit.core.entities.model import Cluster
from toolkit.secrets_masking import masked

PREFIX = "oozie.client."
USER = PREFIX + "user"
AUTH = PREFIX + "auth"
CA_FILE = PREFIX + "ca-file"
POLL_SECONDS = PREFIX + "poll-seconds"
AUTH_MODES = ("simple", "kerberos")
DEFAULT_POLL_SECONDS = 10.0


@dataclass(frozen=True)
class OozieAccess:
    """Where and as whom the engines talk to a cluster's Oozie: `url` is `http(s)://host:port/oozie`."""

    url: str
    user: str
    kerberos: bool
    ca_file: str | None
    poll_seconds: float


def interface_problem(cluster: Cluster) -> str | None:
    """Why the cluster's `workflow` interface is no Oozie server (a sentence's end after the cluster is named), or
    None."""
    workflow = cluster.interfaces.get("workflow")
    if workflow is None:
        return "has no workflow interface: set interfaces.workflow.endpoint to its Oozie server, e.g. " \
               "http://oozie:11000/oozie."
    parts = urlsplit(workflow.endpoint)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return (f"has the workflow interface {masked(workflow.endpoint)}, which is no Oozie server's URL: write it "
                "as http://oozie:11000/oozie (https:// for TLS).")
    if parts.username is not None or parts.password is not None:
        return ("has a user name or password in its workflow interface; give the user as the cluster property "
                f"{USER} (never a password: use {AUTH}: kerberos).")
    return None


def settings_problems(cluster: Cluster) -> list[tuple[str, str]]:
    """(property name, what is wrong) for each `oozie.client.*` property that cannot work."""
    found = []
    auth = cluster.properties.get(AUTH)
    if auth is not None and auth.strip().lower() not in AUTH_MODES:
        found.append((AUTH, f"{AUTH} {auth!r} is not one of {', '.join(AUTH_MODES)}."))
    user = cluster.properties.get(USER)
    if user is not None and (not user.strip() or any(char.isspace() for char in user.strip())):
        found.append((USER, f"{USER} {user!r} is not a user name (empty or with blanks)."))
    poll = cluster.properties.get(POLL_SECONDS)
    if poll is not None and _seconds(poll) is None:
        found.append((POLL_SECONDS, f"{POLL_SECONDS} {poll!r} is not a positive number of seconds."))
    return found


def oozie_access(cluster: Cluster) -> OozieAccess:
    """The access of a cluster whose `interface_problem` and `settings_problems` are none."""
    workflow = cluster.interfaces["workflow"]
    properties = cluster.properties
    auth = (properties.get(AUTH) or "").strip().lower()
    kerberos = auth == "kerberos" or (
        not auth and str(properties.get("hadoop.security.authentication", "")).strip().lower() == "kerberos")
    poll = _seconds(properties.get(POLL_SECONDS, "")) or DEFAULT_POLL_SECONDS
    return OozieAccess(url=workflow.endpoint.rstrip("/"), user=(properties.get(USER) or "").strip()
                       or getpass.getuser(), kerberos=kerberos, ca_file=properties.get(CA_FILE) or None,
                       poll_seconds=poll)


def _seconds(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value > 0 else None
