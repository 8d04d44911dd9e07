"""A real Airflow for tests, started once for the tests that need it, on loopback (docs/architecture.md: real
components): Airflow 3.3.2 from its own virtualenv (`make airflow` builds `<repo>/.airflow-venv`;
FEED_TOOLKIT_AIRFLOW_VENV names another), on SQLite in a temporary AIRFLOW_HOME, with `airflow db migrate`, then the
API server (a free loopback port), the scheduler (LocalExecutor, which Airflow 3 allows on SQLite) and the DAG
processor (scanning the dags folder the tests write into every 2 s, parsing each new file once). No triggerer:
nothing here defers. Authentication is the simple auth manager's, with one admin user whose password is generated
per run; `POST /auth/token` gives its JWT.

Helpers for tests: an authenticated JSON client (`get`, `post`), `write_dag` and `wait_for_dag` (parsed, without
import errors), `dag_runs`, `asset_events`. Every process runs in its own process group, killed at the end.
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.airflow_venv import airflow_bin

USER = "feed-toolkit-tests"
START_SECONDS = 120.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class AirflowServer:
    home: Path
    port: int
    password: str = field(repr=False)
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    _token: str | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def dags(self) -> Path:
        return self.home / "dags"

    # The client

    def token(self) -> str:
        if self._token is None:
            answer = self._send("POST", "/auth/token", {"username": USER, "password": self.password}, {})
            self._token = str(answer["access_token"])
        return self._token

    def get(self, path: str, **query: Any) -> dict[str, Any]:
        if query:
            path += "?" + urllib.parse.urlencode(query)
        return self._send("GET", path, None, {"Authorization": f"Bearer {self.token()}"})

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._send("POST", path, body, {"Authorization": f"Bearer {self.token()}"})

    def _send(self, method: str, path: str, body: dict[str, Any] | None, headers: dict[str, str]) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={**headers, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            answer: dict[str, Any] = json.loads(response.read() or b"{}")
            return answer

    # Helpers

    def write_dag(self, name: str, text: str) -> None:
        """A DAG file in the dags folder, written under a temporary name then renamed (never parsed half-written)."""
        temporary = self.dags / f".{name}.tmp"
        temporary.write_text(text)
        temporary.rename(self.dags / f"{name}.py")

    def wait_for_dag(self, dag_id: str, timeout: float = 60.0) -> dict[str, Any]:
        """The DAG once the DAG processor has parsed it; fails with the import errors when it does not appear."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                return self.get(f"/api/v2/dags/{dag_id}")
            except urllib.error.HTTPError as err:
                if err.code != 404:
                    raise
            time.sleep(0.5)
        errors = self.get("/api/v2/importErrors").get("import_errors", [])
        pytest.fail(f"Airflow did not parse the DAG {dag_id} within {timeout:g} s; import errors: {errors}; "
                    f"dag-processor log: {self.log_tail('dag-processor')}", pytrace=False)

    def dag_runs(self, dag_id: str) -> list[dict[str, Any]]:
        return list(self.get(f"/api/v2/dags/{dag_id}/dagRuns", limit=100, order_by="id")["dag_runs"])

    def wait_for_runs(self, dag_id: str, count: int, timeout: float = 60.0) -> list[dict[str, Any]]:
        """The DAG's runs once there are `count` of them (fails when there are more, or fewer in time)."""
        deadline = time.monotonic() + timeout
        runs = self.dag_runs(dag_id)
        while len(runs) < count and time.monotonic() < deadline:
            time.sleep(0.5)
            runs = self.dag_runs(dag_id)
        assert len(runs) == count, f"{dag_id} has {len(runs)} run(s), not {count}: {runs}"
        return runs

    def asset(self, uri: str) -> dict[str, Any]:
        assets = [a for a in self.get("/api/v2/assets", uri_pattern=uri, limit=100)["assets"] if a["uri"] == uri]
        assert len(assets) == 1, f"Airflow has {len(assets)} asset(s) with the URI {uri}"
        return assets[0]

    def asset_events(self, asset_id: int, timeout: float = 30.0) -> list[dict[str, Any]]:
        """The asset's events. Airflow 3.3.2 answers this listing 500 while a DAG run one of them created is queued
        (its `created_dagruns` item has no start_date and fails the response model): asked again until it starts."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return list(self.get("/api/v2/assets/events", asset_id=asset_id, limit=100,
                                     order_by="timestamp")["asset_events"])
            except urllib.error.HTTPError as err:
                if err.code != 500 or time.monotonic() > deadline:
                    raise
            time.sleep(0.5)

    def log_tail(self, name: str, lines: int = 15) -> str:
        path = self.home / f"{name}.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else "(no log)"

    # Life cycle

    def environment(self) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if not key.startswith("AIRFLOW")}
        env.update({
            "AIRFLOW_HOME": str(self.home),
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{self.home}/airflow.db",
            "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
            "AIRFLOW__CORE__PARALLELISM": "2",
            "AIRFLOW__CORE__DAGS_FOLDER": str(self.dags),
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "False",
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS": f"{USER}:admin",
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE": str(self.home / "passwords.json"),
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"{self.url}/execution/",
            "AIRFLOW__API_AUTH__JWT_SECRET": secrets.token_hex(16),  # shared by the three processes
            "AIRFLOW__API__HOST": "127.0.0.1",
            "AIRFLOW__API__PORT": str(self.port),
            "AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL": "2",
            # A new file is parsed at the next scan (2 s) whatever this says; a parsed one is not parsed again
            # for ten minutes, so that an idle DAG processor does not keep a core busy re-reading the same files.
            "AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL": "600",
            "AIRFLOW__DAG_PROCESSOR__PARSING_PROCESSES": "1",
            "AIRFLOW__SCHEDULER__SCHEDULER_HEARTBEAT_SEC": "1",
            "AIRFLOW__LOGGING__LOGGING_LEVEL": "WARNING",
        })
        return env

    def start(self, attempts: int = 3) -> None:
        """Migrate the database, then start the three processes on a free port; when another process took that
        port before the API server could bind it (a JVM's ephemeral port, say), stop them and try another."""
        program = airflow_bin("airflow")
        self.dags.mkdir(parents=True, exist_ok=True)
        (self.home / "passwords.json").write_text(json.dumps({USER: self.password}))
        migrate = subprocess.run([str(program), "db", "migrate"], env=self.environment(), cwd=self.home,
                                 capture_output=True, timeout=START_SECONDS)
        if migrate.returncode != 0:
            pytest.fail(f"`airflow db migrate` failed: {migrate.stderr.decode(errors='replace')[-2000:]}",
                        pytrace=False)
        for _ in range(attempts):
            self.port = free_port()  # chosen at the last moment: the window another process can take it is short
            env = self.environment()
            commands = {"api-server": ["api-server", "--host", "127.0.0.1", "--port", str(self.port), "--workers",
                                       "1"], "scheduler": ["scheduler"], "dag-processor": ["dag-processor"]}
            for name, arguments in commands.items():
                with open(self.home / f"{name}.log", "ab") as log:
                    self.processes[name] = subprocess.Popen([str(program), *arguments], env=env, cwd=self.home,
                                                            stdout=log, stderr=subprocess.STDOUT,
                                                            start_new_session=True)
            if self._wait_until_up():
                return
            self.stop()
        pytest.fail(f"Airflow's API server found its port taken by another process {attempts} times",
                    pytrace=False)

    def _wait_until_up(self) -> bool:
        """True once the scheduler is healthy; False when the port answers as something other than Airflow, or
        the API server exited because the port was in use."""
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            for name, process in self.processes.items():
                if process.poll() is not None:
                    if name == "api-server" and "address already in use" in self.log_tail(name).lower():
                        return False
                    pytest.fail(f"Airflow's {name} exited ({process.returncode}) at start: {self.log_tail(name)}",
                                pytrace=False)
            try:
                health = self._send("GET", "/api/v2/monitor/health", None, {})
                if health.get("scheduler", {}).get("status") == "healthy":
                    return True
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass  # not answering yet (a closed connection is http.client's RemoteDisconnected: caught here)
            except (http.client.HTTPException, json.JSONDecodeError):
                return False  # another server (not HTTP, or not JSON) answers on the port
            time.sleep(0.5)
        pytest.fail(f"Airflow's API server did not answer healthy within {START_SECONDS:g} s: "
                    f"{self.log_tail('api-server')}", pytrace=False)

    def stop(self) -> None:
        """Kill every process group (the API server and the executor have workers), politely first."""
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for process in self.processes.values():
            with suppress(subprocess.TimeoutExpired):
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
        for process in self.processes.values():
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextmanager
def running_airflow(home: Path) -> Iterator[AirflowServer]:
    server = AirflowServer(home, 0, secrets.token_urlsafe(12))  # start() chooses the port
    try:
        server.start()
        yield server
    finally:
        server.stop()
