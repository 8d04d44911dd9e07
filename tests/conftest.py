"""Shared test settings: Spark (when a test needs it) stays on loopback, as docs/architecture.md says; the real
SMTP servers of the notification tests (tests/smtp_server.py), started once per session; each test's own parse
cache (toolkit/entities/parse_cache.py), never the user's ~/.cache; and the groups that keep `make test`'s two
pytest-xdist workers from starting a heavy server twice."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.smtp_server import SmtpServers

os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")

# `make test` runs two workers (`-n 2 --dist loadgroup`); a session fixture starts once per worker that uses it. The
# tests of these servers run on one worker, so each starts once: a second standalone cluster would share the two
# cores with the first, a second Airflow costs a minute of start-up.
ONE_WORKER_FIXTURES = {"spark_cluster": "spark-cluster", "airflow": "airflow", "browser": "browser"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for fixture, group in ONE_WORKER_FIXTURES.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.xdist_group(group))
                break


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
