"""The local metastore's start when another process takes the free port it chose before its JVM binds it (a
race of a busy test run: a JVM's ephemeral port). A stand-in program plays the server: the race is about ports, and a
real JVM would take seconds to lose it."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from toolkit.devtools import local_metastore

_SERVER = """#!{python}
import socket, sys, time
port = int(sys.argv[sys.argv.index("-p") + 1])
time.sleep(0.3)  # a JVM takes seconds before it binds
listener = socket.socket()
try:
    listener.bind(("127.0.0.1", port))
except OSError as error:
    print(error, flush=True)
    sys.exit(1)
listener.listen()
time.sleep(60)
"""


def test_a_port_another_process_took_before_the_server_bound_it_is_not_taken_for_the_server(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The free port chosen is bound by someone else while the JVM starts: the answer on it is not the server's, so
    the start tries another port instead of handing out the other process's."""
    fake_java = tmp_path / "stand-in-server"
    fake_java.write_text(_SERVER.format(python=sys.executable))
    fake_java.chmod(0o755)
    monkeypatch.setattr(local_metastore, "java_executable", lambda: str(fake_java))
    monkeypatch.setattr(local_metastore, "spark_jars", lambda: tmp_path)
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = squatter.getsockname()[1]
        ports = iter([taken])
        real_free_port = local_metastore.free_port
        monkeypatch.setattr(local_metastore, "free_port", lambda: next(ports, None) or real_free_port())
        server = local_metastore.MetastoreServer.start(tmp_path / "ms", timeout=20)
        try:
            assert server.port != taken
            assert server.process.poll() is None  # the server that answers is the one started
        finally:
            server.stop()
