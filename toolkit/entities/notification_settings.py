"""How a cluster sends notifications, read from its `properties`: what the notifier sends with and what the
linter checks (CL007), parsed in one place.

- `notification.smtp.host` (SMTP on when set), `.port` (default 25, 465 with `ssl`, 587 with `starttls`),
  `.tls`: `starttls`, `ssl` or `none` (default `none`), `.from` (default `feed-toolkit@<host>`), `.user` (AUTH
  when set), the password from the environment variable `.password-env` names or the file `.password-file` names
  (never the repo: `notification.smtp.password` itself is refused), `.ca-file`: the certificates to trust (a
  self-signed server), else the system's;
- `notification.webhook.url`: an http(s) URL that gets each message as JSON (chat tools' incoming webhooks).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from toolkit.entities.model import Cluster
from toolkit.entities.secret_sources import variable_name
from toolkit.errors import UsageError

PREFIX = "notification."
SECRET_PROPERTY = "notification.smtp.password"
TLS_MODES = ("none", "starttls", "ssl")
_DEFAULT_PORTS = {"none": 25, "starttls": 587, "ssl": 465}
PROPERTIES = ("notification.smtp.host", "notification.smtp.port", "notification.smtp.tls", "notification.smtp.from",
              "notification.smtp.user", "notification.smtp.password-env", "notification.smtp.password-file",
              "notification.smtp.ca-file", "notification.webhook.url")


@dataclass(frozen=True)
class SmtpSettings:
    host: str
    port: int
    tls: str
    sender: str
    user: str | None = None
    password_env: str | None = None
    password_file: str | None = None
    ca_file: str | None = None


@dataclass(frozen=True)
class NotificationSettings:
    """The channels of a cluster; both None: notifications cannot be sent there."""

    smtp: SmtpSettings | None
    webhook_url: str | None

    @property
    def any_channel(self) -> bool:
        return self.smtp is not None or self.webhook_url is not None


def notification_settings(cluster: Cluster) -> NotificationSettings:
    """The settings; UsageError (one sentence naming the cluster and the property) for a bad or secret value."""
    props = cluster.properties
    if SECRET_PROPERTY in props:
        raise UsageError(f"The property {SECRET_PROPERTY!r} of cluster '{cluster.name}' puts a password in the "
                         "repo: remove it and name an environment variable (notification.smtp.password-env) or a "
                         "file (notification.smtp.password-file) that holds it.")
    unknown = sorted(name for name in props if name.startswith(PREFIX) and name not in PROPERTIES)
    if unknown:
        raise UsageError(f"The property {unknown[0]!r} of cluster '{cluster.name}' is not a notification setting: "
                         f"use one of {', '.join(PROPERTIES)}.")
    return NotificationSettings(_smtp(cluster), _webhook(cluster))


def _smtp(cluster: Cluster) -> SmtpSettings | None:
    props = cluster.properties
    host = props.get("notification.smtp.host", "").strip()
    if not host:
        return None
    tls = props.get("notification.smtp.tls", "none").strip().lower()
    if tls not in TLS_MODES:
        raise UsageError(f"The property 'notification.smtp.tls' of cluster '{cluster.name}' is {tls!r}: give "
                         "starttls, ssl or none.")
    port_text = props.get("notification.smtp.port", str(_DEFAULT_PORTS[tls])).strip()
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise UsageError(f"The property 'notification.smtp.port' of cluster '{cluster.name}' is {port_text!r}: "
                         "give a port number from 1 to 65535.")
    user = props.get("notification.smtp.user") or None
    password_env = props.get("notification.smtp.password-env") or None
    if password_env is not None:
        password_env = variable_name(password_env, "notification.smtp.password-env", f"of cluster '{cluster.name}'")
    password_file = props.get("notification.smtp.password-file") or None
    if user is not None and password_env is None and password_file is None:
        raise UsageError(f"The cluster '{cluster.name}' sets notification.smtp.user but no password: name the "
                         "environment variable (notification.smtp.password-env) or the file "
                         "(notification.smtp.password-file) that holds it.")
    if password_env is not None and password_file is not None:
        raise UsageError(f"The cluster '{cluster.name}' sets both notification.smtp.password-env and "
                         "notification.smtp.password-file: keep one.")
    return SmtpSettings(host=host, port=int(port_text), tls=tls,
                        sender=props.get("notification.smtp.from") or f"feed-toolkit@{host}", user=user,
                        password_env=password_env, password_file=password_file,
                        ca_file=props.get("notification.smtp.ca-file") or None)


def _webhook(cluster: Cluster) -> str | None:
    url = cluster.properties.get("notification.webhook.url", "").strip()
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"The property 'notification.webhook.url' of cluster '{cluster.name}' is not an http(s) "
                         "URL: give the webhook's full address, e.g. https://chat.example.com/hooks/abc.")
    return url
