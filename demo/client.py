"""The demo's side of its long-lived Spark driver (demo/driver.py): start it, send it calls, stop it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SOCKET_VARIABLE = "FEED_TOOLKIT_DEMO_DRIVER"  # where demo/submit.py finds the driver


@dataclass(frozen=True)
class Answer:
    code: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def status(self) -> dict[str, object]:
        """The status line: the last line on stdout."""
        return json.loads(self.stdout.strip().splitlines()[-1])


def ask(path: str, argv: list[str], env: dict[str, str] | None = None) -> Answer:
    """One call of entrypoints/<argv[0]>.py through the driver listening at `path`."""
    with socket.socket(socket.AF_UNIX) as connection:
        connection.connect(path)
        with connection.makefile("rw", encoding="utf-8") as stream:
            stream.write(json.dumps({"argv": argv, "env": env or {}}) + "\n")
            stream.flush()
            return Answer(**json.loads(stream.readline()))


class Driver:
    """One `spark-submit demo/driver.py` for the whole demo, started in the background at once."""

    def __init__(self, spark_submit: list[str], env: dict[str, str]) -> None:
        self.folder = tempfile.mkdtemp(prefix="feed-toolkit-demo-driver-")
        self.socket = os.path.join(self.folder, "calls")
        self.env = {**env, SOCKET_VARIABLE: self.socket}
        self.log = open(os.path.join(self.folder, "driver.log"), "wb")  # noqa: SIM115 (open while it runs)
        self.process = subprocess.Popen([*spark_submit, str(PROJECT / "demo" / "driver.py"), "--socket", self.socket],
                                        stdout=self.log, stderr=subprocess.STDOUT, env=self.env, cwd=PROJECT)

    def call(self, *argv: str, env: dict[str, str] | None = None) -> Answer:
        self._wait_ready()
        return ask(self.socket, list(argv), env)

    def _wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while not os.path.exists(self.socket):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the demo's Spark driver did not start: see {self.log.name}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None and os.path.exists(self.socket):
            with socket.socket(socket.AF_UNIX) as connection:
                connection.connect(self.socket)
                connection.sendall(b'"stop"\n')
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()
