"""Debian's prometheus-node-exporter and prometheus, each started by a test on a free port of 127.0.0.1 in a folder
of its own (`make test` installs them), and the ledger fixtures `site`, `history` and `metered`
(tests/unit/cli/ledger_site.py)."""

from __future__ import annotations

import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.unit.cli.ledger_site import history, metered, site  # noqa: F401
from toolkit.devtools.local_metastore import free_port

NODE_EXPORTER = Path("/usr/bin/prometheus-node-exporter")
PROMETHEUS = Path("/usr/bin/prometheus")
PROMTOOL = Path("/usr/bin/promtool")


def require(program: Path) -> None:
    if not program.exists():
        pytest.fail(f"{program} is missing: install Debian's prometheus and prometheus-node-exporter "
                    "(`apt-get install prometheus prometheus-node-exporter`; `make test` does).")


def fetch(url: str, timeout: float = 5.0) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return str(response.read().decode())


def until(check: Callable[[], object], what: str, seconds: float = 30.0) -> object:
    """The first true answer of `check` within `seconds` (errors count as not yet)."""
    deadline, last = time.monotonic() + seconds, None
    while time.monotonic() < deadline:
        try:
            answer = check()
        except (OSError, ValueError, KeyError, IndexError) as err:
            answer, last = None, err
        if answer:
            return answer
        time.sleep(0.2)
    raise AssertionError(f"{what} did not happen in {seconds:.0f} s (last error: {last})")


@contextmanager
def running(argv: list[str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture()
def node_exporter(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """(its textfile folder, its /metrics URL): only the textfile collector, as a batch job's host runs it."""
    require(NODE_EXPORTER)
    folder, port = tmp_path / "textfile", free_port()
    folder.mkdir()
    argv = [str(NODE_EXPORTER), "--collector.disable-defaults", "--collector.textfile",
            f"--collector.textfile.directory={folder}", f"--web.listen-address=127.0.0.1:{port}"]
    url = f"http://127.0.0.1:{port}/metrics"
    with running(argv, tmp_path / "node-exporter.log"):
        until(lambda: fetch(url), "node_exporter answering")
        yield folder, url
