"""Real SMTP servers on loopback for the tests (aiosmtpd): one per TLS mode the notifier speaks, `none`,
`starttls` (with AUTH, the password checked) and `ssl` (implicit TLS), the two TLS ones with a self-signed
certificate made here by openssl for 127.0.0.1; each keeps the messages it received."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import Message
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

USER, PASSWORD = "feeds", "s3cret-for-tests"


@dataclass
class Received:
    sender: str
    recipients: list[str]
    message: Message


@dataclass
class SmtpServer:
    port: int
    tls: str
    received: list[Received] = field(default_factory=list)
    logins: list[str] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's name
        self.received.append(Received(envelope.mail_from, list(envelope.rcpt_tos),
                                      message_from_bytes(envelope.original_content or envelope.content,
                                                         policy=policy.default)))
        return "250 OK"

    def authenticate(self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and data.login.decode() == USER and data.password.decode() == PASSWORD
        if ok:
            self.logins.append(data.login.decode())
        return AuthResult(success=ok, handled=False)  # handled=False: aiosmtpd answers 535 itself

    def properties(self, ca_file: Path) -> dict[str, str]:
        """A cluster's notification properties for this server."""
        props = {"notification.smtp.host": "127.0.0.1", "notification.smtp.port": str(self.port),
                 "notification.smtp.tls": self.tls, "notification.smtp.from": "toolkit@example.com"}
        if self.tls != "none":
            props["notification.smtp.ca-file"] = str(ca_file)
        return props


@dataclass
class SmtpServers:
    none: SmtpServer
    starttls: SmtpServer
    ssl: SmtpServer
    ca_file: Path

    def clear(self) -> None:
        for server in (self.none, self.starttls, self.ssl):
            server.received.clear()
            server.logins.clear()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost, and its key (openssl, no shell)."""
    cert, key = folder / "smtp-cert.pem", folder / "smtp-key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True)
    return cert, key


@contextmanager
def smtp_servers(folder: Path) -> Iterator[SmtpServers]:
    import ssl

    cert, key = self_signed(folder)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    servers = SmtpServers(SmtpServer(free_port(), "none"), SmtpServer(free_port(), "starttls"),
                          SmtpServer(free_port(), "ssl"), cert)
    with ExitStack() as stack:
        for server, options in (
                (servers.none, {}),
                (servers.starttls, {"tls_context": context, "authenticator": servers.starttls.authenticate,
                                    "auth_require_tls": True}),
                (servers.ssl, {"ssl_context": context})):
            controller = Controller(server, hostname="127.0.0.1", port=server.port, **options)
            controller.start()
            stack.callback(controller.stop)
        yield servers
