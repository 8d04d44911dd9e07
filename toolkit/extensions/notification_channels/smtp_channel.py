"""E-mail over the cluster's SMTP server with Python's own smtplib and email: plain, STARTTLS or implicit TLS,
AUTH when a user is set. The standard library speaks all of it, so no mail library is needed.

Its properties: `notification.smtp.host` (e-mail is on when it is set), `.port` (default 25, 465 with `ssl`, 587
with `starttls`), `.tls`: `starttls`, `ssl` or `none` (default `none`), `.from` (default `feed-toolkit@<host>`),
`.user` (AUTH when set), the password from the environment variable `.password-env` names or the file
`.password-file` names (never the repo: `notification.smtp.password` itself is refused), `.ca-file`: the
certificates to trust (a self-signed server), else the system's.

The password is read when a message is sent; it is never part of an error (smtplib's errors carry the server's
reply, not what was sent)."""

from __future__ import annotations

import os
import smtplib
import ssl
from dataclasses import dataclass
from pathlib import Path

from toolkit.core.entities.model import Cluster
from toolkit.core.entities.secret_sources import variable_name
from toolkit.errors import UsageError
from toolkit.extensions.notification_channels.channel import Channel, ChannelError, Message

TLS_MODES = ("none", "starttls", "ssl")
_DEFAULT_PORTS = {"none": 25, "starttls": 587, "ssl": 465}


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


def read_settings(cluster: Cluster) -> SmtpSettings | None:
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


def send_mail(settings: SmtpSettings, message: Message, recipients: tuple[str, ...], timeout: float) -> None:
    """Deliver `message` to `recipients`, or raise ChannelError saying why not."""
    password = _password(settings) if settings.user else None
    try:
        context = ssl.create_default_context(cafile=settings.ca_file) if settings.tls != "none" else None
        client: smtplib.SMTP
        if settings.tls == "ssl":
            client = smtplib.SMTP_SSL(settings.host, settings.port, timeout=timeout, context=context)
        else:
            client = smtplib.SMTP(settings.host, settings.port, timeout=timeout)
        with client:
            if settings.tls == "starttls":
                client.starttls(context=context)
            if settings.user and password is not None:
                client.login(settings.user, password)
            refused = client.send_message(message.email(settings.sender, recipients), from_addr=settings.sender,
                                          to_addrs=list(recipients))
    except (OSError, smtplib.SMTPException, ssl.SSLError) as err:
        raise ChannelError(f"SMTP {settings.host}:{settings.port} ({settings.tls}): {_reason(err)}") from None
    if refused:
        raise ChannelError(f"SMTP {settings.host}:{settings.port} refused {', '.join(sorted(refused))}")


def _password(settings: SmtpSettings) -> str:
    if settings.password_env is not None:
        value = os.environ.get(settings.password_env)
        if value is None:
            raise ChannelError(f"the environment variable {settings.password_env} (notification.smtp.password-env) "
                               "is not set: the SMTP password could not be read")
        return value
    assert settings.password_file is not None  # read_settings requires one of the two with a user
    try:
        return Path(settings.password_file).read_text().strip()
    except OSError as err:
        raise ChannelError(f"the password file {settings.password_file} (notification.smtp.password-file) cannot "
                           f"be read: {err.strerror}") from None


def _reason(err: BaseException) -> str:
    if isinstance(err, smtplib.SMTPResponseException):
        text = err.smtp_error.decode(errors="replace") if isinstance(err.smtp_error, bytes) else str(err.smtp_error)
        return f"the server answered {err.smtp_code} {text}"
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


CHANNEL = Channel(
    name="smtp", read=read_settings, send=send_mail, refused=("notification.smtp.password",),
    properties=("notification.smtp.host", "notification.smtp.port", "notification.smtp.tls",
                "notification.smtp.from", "notification.smtp.user", "notification.smtp.password-env",
                "notification.smtp.password-file", "notification.smtp.ca-file"))
