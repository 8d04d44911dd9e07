"""E-mail over the cluster's SMTP server with Python's own smtplib and email: plain, STARTTLS or implicit TLS,
AUTH when a user is set. The standard library speaks all of it, so no mail library is needed.

The password is read when a message is sent, from the environment variable or the file the cluster names; it is
never part of an error (smtplib's errors carry the server's reply, not what was sent)."""

from __future__ import annotations

import os
import smtplib
import ssl
from pathlib import Path

from toolkit.entities.notification_settings import SmtpSettings
from toolkit.notifications.errors import ChannelError
from toolkit.notifications.message import Notice


def send_mail(settings: SmtpSettings, notice: Notice, recipients: tuple[str, ...], timeout: float) -> None:
    """Deliver `notice` to `recipients`, or raise ChannelError saying why not."""
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
            refused = client.send_message(notice.email(settings.sender, recipients), from_addr=settings.sender,
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
    assert settings.password_file is not None  # notification_settings requires one of the two with a user
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
