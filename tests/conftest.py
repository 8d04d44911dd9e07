"""Shared test settings: Spark (when a test needs it) stays on loopback, as docs/architecture.md says; the real
SMTP servers of the notification tests (tests/smtp_server.py), started once per session; each test's own parse
cache (toolkit/core/entities/parse_cache.py), never the user's ~/.cache; the JVM options of the JVMs tests start in
subprocesses (tests/jvm_options.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.jvm_options import use_for_subprocesses

if TYPE_CHECKING:
    from tests.smtp_server import SmtpServers

os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
use_for_subprocesses()  # tests/jvm_options.py


@pytest.fixture(autouse=True)
def parse_cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands run by a test (and their subprocesses) keep their parse cache in a folder of that test."""
    monkeypatch.setenv("FEED_TOOLKIT_CACHE_DIR", str(tmp_path_factory.mktemp("parse-cache")))


@pytest.fixture(scope="session")
def smtp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SmtpServers]:
    """Three aiosmtpd servers on loopback: TLS none, starttls (with AUTH) and ssl, with a self-signed certificate."""
    from tests.smtp_server import smtp_servers

    with smtp_servers(tmp_path_factory.mktemp("smtp")) as servers:
        yield servers


@pytest.fixture
def mail(smtp: SmtpServers) -> SmtpServers:
    """The session's SMTP servers, emptied of what earlier tests sent."""
    smtp.clear()
    return smtp
