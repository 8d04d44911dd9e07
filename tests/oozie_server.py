"""A STAND-IN for an Oozie server on loopback: Oozie needs Hadoop (a namenode, YARN) and cannot run here, so the
tests of the `oozie` and `pig` engines talk to this one, which follows Oozie's REST API (version 2, as
client/.../OozieClient.java calls it) for exactly the calls the toolkit makes
(toolkit/extensions/workflow_engines/oozie_client.py), and runs a workflow's actions as local shell steps:

- POST /oozie/v2/jobs?user.name=U, a body of Hadoop configuration XML: a workflow job in PREP, 201 `{"id": ...}`
  (E0405 without `oozie.wf.application.path`; `?action=start` starts it at once, as Oozie does);
- PUT /oozie/v2/job/ID?action=start (E1003 unless PREP) and ?action=kill (the running step killed, KILLED);
  ?action=suspend (E1003 unless RUNNING: SUSPENDED, the running step goes on, as a Hadoop action does, and no
  further node is taken) and ?action=resume (E1003 unless SUSPENDED: RUNNING again, the walk goes on);
- GET /oozie/v2/job/ID?show=info: `id`, `appName`, `appPath`, `user`, `status`, `conf` (the XML) and `actions`
  (`name`, `type`, `status` OK/ERROR/KILLED, `errorCode`, `errorMessage`); an unknown id is E0604.
Errors are Oozie's: an HTTP status with the `oozie-error-code` and `oozie-error-message` headers; a test queues
refusals of the next calls of a method in `faults` (Oozie in safe mode, say).

A job reads `workflow.xml` from the application folder (a `file://` URI) and walks it from `start`: a `shell`
action runs `exec` with its `argument`s and `env-var`s (a relative `exec` in the application folder), a `pig`
action runs the command the test gives as `pig` with `-param name=value` for each `param` and `-f SCRIPT`; exit 0
takes `ok`, another code `error` (the action ERROR with Oozie's ShellMain message); `end` is SUCCEEDED, a `kill`
node KILLED (as in Oozie), and a `${...}` the configuration cannot resolve FAILED with EL_ERROR. `${name}` and
`${wf:conf('name')}` are resolved from the job's configuration. Every call is recorded (`calls`) and every job kept
(`jobs`, its configuration as received), so tests assert what the toolkit sent.

From the command line (a demo, a try by hand), it serves until interrupted:
`python -m tests.oozie_server --port 11000 [--pig COMMAND...]`, printing its URL; a cluster's workflow interface
`http://127.0.0.1:11000/oozie` then sends the oozie and pig processes there.
"""

from __future__ import annotations

import contextlib
import json
import re
import ssl
import subprocess
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

_VARIABLE = re.compile(r"\$\{(?:wf:conf\('([^']*)'\)|([A-Za-z_][\w.-]*))\}")


class OozieFailure(Exception):
    """An Oozie error to answer: HTTP status, Oozie's error code and message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code = status, code


@dataclass
class StandInAction:
    name: str
    type: str
    status: str = "RUNNING"
    errorCode: str | None = None  # noqa: N815 - Oozie's JSON names
    errorMessage: str | None = None  # noqa: N815


@dataclass
class StandInJob:
    id: str
    user: str
    conf: dict[str, str]
    conf_xml: str
    status: str = "PREP"
    app_name: str = ""
    actions: list[StandInAction] = field(default_factory=list)
    step: subprocess.Popen[bytes] | None = None

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "appName": self.app_name, "appPath": self.conf.get("oozie.wf.application.path"),
                "user": self.user, "status": self.status, "conf": self.conf_xml,
                "actions": [action.__dict__ for action in self.actions]}


class StandInOozie:
    """The stand-in server: `url` is `http://127.0.0.1:PORT/oozie` (`https://` with `tls`, a certificate and its
    key); `commands` maps an action type the tests run with a command of their own (`pig`) to its argument list."""

    def __init__(self, commands: dict[str, Sequence[str]] | None = None, port: int = 0,
                 tls: tuple[Path, Path] | None = None) -> None:
        self.commands = dict(commands or {})
        self.jobs: dict[str, StandInJob] = {}
        self.calls: list[tuple[str, str, dict[str, str]]] = []
        self.faults: dict[str, list[OozieFailure]] = {}  # by HTTP method: the next calls' refusals, in order
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        if tls is not None:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(*tls)
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        scheme = "https" if tls is not None else "http"
        self.url = f"{scheme}://127.0.0.1:{self._server.server_address[1]}/oozie"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def start(self) -> StandInOozie:
        self._thread.start()
        return self

    def stop(self) -> None:
        for job in self.jobs.values():
            if job.step is not None and job.step.poll() is None:
                job.step.kill()
        self._server.shutdown()
        self._server.server_close()

    def reset(self) -> None:
        self.stop_steps()
        self.jobs.clear()
        self.calls.clear()
        self.commands.clear()
        self.faults.clear()

    def stop_steps(self) -> None:
        for job in self.jobs.values():
            if job.step is not None and job.step.poll() is None:
                job.step.kill()

    def submissions(self) -> list[dict[str, str]]:
        """The configuration of every job submitted, in order."""
        return [job.conf for job in self.jobs.values()]

    # the API

    def submit(self, user: str, body: bytes, start: bool) -> str:
        conf = _configuration(body)
        if not conf.get("oozie.wf.application.path"):
            raise OozieFailure(400, "E0405", "Submission request doesn't have any application or lib path")
        with self._lock:
            job = StandInJob(f"{len(self.jobs) + 1:07d}-000000000000000-oozie-oozi-W", user, conf,
                             body.decode("utf-8"))
            self.jobs[job.id] = job
        if start:
            self.start_job(job.id)
        return job.id

    def job(self, job_id: str) -> StandInJob:
        job = self.jobs.get(job_id)
        if job is None:
            raise OozieFailure(400, "E0604", f"Job does not exist [{job_id}]")
        return job

    def start_job(self, job_id: str) -> None:
        job = self.job(job_id)
        with self._lock:
            if job.status != "PREP":
                raise OozieFailure(400, "E1003", f"Invalid coordinator application attributes, job {job_id} is "
                                                 f"{job.status}, not PREP")
            job.status = "RUNNING"
        threading.Thread(target=self._run, args=(job,), daemon=True).start()

    def kill_job(self, job_id: str) -> None:
        job = self.job(job_id)
        with self._lock:
            if job.status in ("PREP", "RUNNING", "SUSPENDED"):
                job.status = "KILLED"
                for action in job.actions:
                    if action.status == "RUNNING":
                        action.status = "KILLED"
            if job.step is not None and job.step.poll() is None:
                job.step.kill()

    def suspend_job(self, job_id: str) -> None:
        self._switch(job_id, "RUNNING", "SUSPENDED")

    def resume_job(self, job_id: str) -> None:
        self._switch(job_id, "SUSPENDED", "RUNNING")

    def _switch(self, job_id: str, before: str, after: str) -> None:
        job = self.job(job_id)
        with self._lock:
            if job.status != before:
                raise OozieFailure(400, "E1003", f"Invalid workflow job state, job {job_id} is {job.status}, not "
                                                 f"{before}")
            job.status = after

    # the workflow

    def _run(self, job: StandInJob) -> None:
        app = Path(unquote(urlsplit(job.conf["oozie.wf.application.path"]).path))
        try:
            root = ET.parse(app / "workflow.xml").getroot()
        except (OSError, ET.ParseError) as err:
            self._end(job, "FAILED", StandInAction("start", ":START:", "ERROR", "E0710", str(err)))
            return
        job.app_name = root.get("name", "")
        nodes = {node.get("name"): node for node in root if node.get("name")}
        start = next(node for node in root if _local(node.tag) == "start")
        name = start.get("to")
        while job.status in ("RUNNING", "SUSPENDED"):
            if job.status == "SUSPENDED":  # no further node until the job is resumed
                time.sleep(0.05)
                continue
            node = nodes.get(name)
            kind = _local(node.tag) if node is not None else None
            if node is None or kind == "end":
                self._end(job, "SUCCEEDED")
                return
            if kind == "kill":
                self._end(job, "KILLED")
                return
            if kind != "action":
                self._end(job, "FAILED", StandInAction(str(name), kind or "", "ERROR", "E0700",
                                                       f"the stand-in runs no {kind} node"))
                return
            name = self._action(job, app, node)

    def _action(self, job: StandInJob, app: Path, node: ET.Element) -> str | None:
        body = next(child for child in node if _local(child.tag) not in ("ok", "error"))
        action = StandInAction(node.get("name", ""), _local(body.tag))
        job.actions.append(action)
        transitions = {_local(child.tag): child.get("to") for child in node if _local(child.tag) in ("ok", "error")}
        try:
            command, env = self._command(job, app, body)
        except OozieFailure as failure:
            self._end(job, "FAILED", None)
            action.status, action.errorCode, action.errorMessage = "ERROR", failure.code, str(failure)
            return None
        while True:  # a suspended job starts no step until resumed
            with self._lock:
                if job.status == "RUNNING":
                    job.step = subprocess.Popen(command, cwd=app, env=env, stdin=subprocess.DEVNULL)
                    break
                if job.status != "SUSPENDED":
                    return None
            time.sleep(0.05)
        code = job.step.wait()
        if job.status not in ("RUNNING", "SUSPENDED"):
            return None
        if code == 0:
            action.status = "OK"
            return transitions.get("ok")
        action.status, action.errorCode = "ERROR", str(code)
        main = "org.apache.oozie.action.hadoop.ShellMain" if action.type == "shell" \
            else "org.apache.oozie.action.hadoop.PigMain"
        action.errorMessage = f"Main class [{main}], exit code [{code}]"
        return transitions.get("error")

    def _command(self, job: StandInJob, app: Path, body: ET.Element) -> tuple[list[str], dict[str, str]]:
        def values(tag: str) -> list[str]:
            return [_resolve(child.text or "", job.conf) for child in body if _local(child.tag) == tag]

        kind = _local(body.tag)
        env = {"PATH": "/usr/bin:/bin"}
        if kind == "shell":
            [executable] = values("exec")
            if not executable.startswith("/"):
                executable = str(app / executable)
            env.update(dict(item.split("=", 1) for item in values("env-var")))
            return [executable, *values("argument")], env
        if kind == "pig" and "pig" in self.commands:
            [script] = values("script")
            params = [part for param in values("param") for part in ("-param", param)]
            return [*self.commands["pig"], *params, "-f", unquote(urlsplit(script).path)], env
        raise OozieFailure(400, "E0700", f"the stand-in runs no {kind} action")

    def _end(self, job: StandInJob, status: str, failed: StandInAction | None = None) -> None:
        with self._lock:
            if job.status == "RUNNING":
                job.status = status
            if failed is not None:
                job.actions.append(failed)


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _resolve(text: str, conf: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name not in conf:
            raise OozieFailure(400, "EL_ERROR", f"variable [{name}] cannot be resolved")
        return conf[name]

    return _VARIABLE.sub(value, text.strip())


def _configuration(body: bytes) -> dict[str, str]:
    try:
        root = ET.fromstring(body)
    except ET.ParseError as err:
        raise OozieFailure(400, "E0200", f"configuration XML cannot be parsed: {err}") from None
    if root.tag != "configuration":
        raise OozieFailure(400, "E0200", f"the body is <{root.tag}>, not <configuration>")
    conf = {}
    for prop in root.iter("property"):
        conf[(prop.findtext("name") or "").strip()] = (prop.findtext("value") or "").strip()
    return conf


def _handler(server: StandInOozie) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            pass

        def _answer(self) -> None:
            parts = urlsplit(self.path)
            params = {key: values[-1] for key, values in parse_qs(parts.query).items()}
            server.calls.append((self.command, parts.path, params))
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                status, answer = self._route(parts.path.removeprefix("/oozie"), params, body)
            except OozieFailure as failure:
                self.send_response(failure.status)
                self.send_header("oozie-error-code", failure.code)
                self.send_header("oozie-error-message", str(failure))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            data = json.dumps(answer).encode() if answer is not None else b""
            self.send_response(status)
            self.send_header("Content-Type", "application/json;charset=UTF-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _route(self, path: str, params: dict[str, str], body: bytes) -> tuple[int, object]:
            if server.faults.get(self.command):
                raise server.faults[self.command].pop(0)
            if self.command == "POST" and path == "/v2/jobs":
                return 201, {"id": server.submit(params.get("user.name", ""), body, params.get("action") == "start")}
            if path.startswith("/v2/job/"):
                job_id = unquote(path.removeprefix("/v2/job/"))
                if self.command == "GET" and params.get("show") == "info":
                    return 200, server.job(job_id).to_json()
                if self.command == "PUT" and params.get("action") == "start":
                    server.start_job(job_id)
                    return 200, None
                if self.command == "PUT" and params.get("action") == "kill":
                    server.kill_job(job_id)
                    return 200, None
                if self.command == "PUT" and params.get("action") in ("suspend", "resume"):
                    (server.suspend_job if params["action"] == "suspend" else server.resume_job)(job_id)
                    return 200, None
            raise OozieFailure(400, "E0303", f"Invalid parameter for {self.command} {path}")

        do_GET = do_POST = do_PUT = _answer

    return Handler


@contextlib.contextmanager
def stand_in_oozie(tls: tuple[Path, Path] | None = None) -> Iterator[StandInOozie]:
    server = StandInOozie(tls=tls).start()
    try:
        yield server
    finally:
        server.stop()


def main(argv: Sequence[str] | None = None) -> None:
    import argparse
    import time

    parser = argparse.ArgumentParser(prog="python -m tests.oozie_server",
                                     description="A stand-in of Oozie's REST API on 127.0.0.1 (tests only).")
    parser.add_argument("--port", type=int, default=11000)
    parser.add_argument("--pig", nargs="+", metavar="COMMAND", help="The command that runs pig actions.")
    args = parser.parse_args(argv)
    server = StandInOozie({"pig": args.pig} if args.pig else None, port=args.port).start()
    print(server.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
