"""The Airflow fixture's start when another process took the port it chose (seen on three workers: a JVM's py4j
server bound it while `airflow db migrate` ran, and the health check read py4j's error line as HTTP)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.airflow_server import AirflowServer


@pytest.fixture
def a_py4j_like_port() -> Iterator[int]:
    """A loopback port whose server answers any request with one line that is not HTTP, as py4j's does."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def answer() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                connection.recv(4096)
                connection.sendall(b"!zspy4j.Py4JException: Unknown command received: GET /api/v2/monitor/health\n")

    threading.Thread(target=answer, daemon=True).start()
    yield listener.getsockname()[1]
    listener.close()


def test_a_port_answered_by_another_server_is_told_apart_from_airflow_not_starting(tmp_path: Path,
                                                                                   a_py4j_like_port: int) -> None:
    server = AirflowServer(tmp_path, a_py4j_like_port, "unused")
    assert server._wait_until_up() is False  # start() then stops its processes and tries another port
