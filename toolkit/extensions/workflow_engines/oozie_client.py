"""A client of Oozie's REST API (version 2) for the calls the `oozie` and `pig` engines make, as Oozie's own
OozieClient makes them (client/src/main/java/org/apache/oozie/client/OozieClient.java):

- `POST /v2/jobs?user.name=U` with the job configuration as Hadoop configuration XML
  (`<configuration><property><name/><value/></property>...`, content type application/xml): 201 and
  `{"id": "..."}`, a workflow job in PREP (without `action=start`, so that its id is recorded before it runs);
- `PUT /v2/job/ID?action=start`, `?action=kill`, `?action=suspend` and `?action=resume` (Oozie's
  `OozieClient.suspend`/`resume`: a SUSPENDED job runs no further action until resumed);
- `GET /v2/job/ID?show=info`: the job's JSON (`status` PREP, RUNNING, SUSPENDED, SUCCEEDED, KILLED or FAILED; its
  `actions`, each with `name`, `status`, `errorCode` and `errorMessage`).
An error is Oozie's `oozie-error-code` and `oozie-error-message` headers (else the HTTP status), said in one sentence
(`OozieError`) that names the server by its URL without user information. Every call has a timeout. Kerberos is
SPNEGO (`Authorization: Negotiate`, the `spnego` package that the `kerberos` extra installs, a ticket from the
cache); TLS is verified with the cluster's CA file, or the system's CAs.
"""

from __future__ import annotations

import base64
import importlib
import json
import ssl
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode, urlsplit
from xml.sax.saxutils import escape

from toolkit.errors import UsageError
from toolkit.extensions.workflow_engines.oozie_settings import OozieAccess
from toolkit.extensions.workflow_engines.workflow_error import WorkflowError
from toolkit.secrets_masking import masked

END_STATES = ("SUCCEEDED", "KILLED", "FAILED")
_TIMEOUT = 60.0


class OozieError(WorkflowError):
    """Oozie refused a call or could not be reached: a failed attempt (retried by the process's policy)."""


@dataclass(frozen=True)
class ActionInfo:
    name: str
    status: str
    error_code: str | None
    error_message: str | None


@dataclass(frozen=True)
class JobInfo:
    id: str
    status: str
    actions: tuple[ActionInfo, ...]

    @property
    def ended(self) -> bool:
        return self.status in END_STATES

    def failure(self) -> str:
        """Why it ended without success: the failed actions' names, codes and messages, as Oozie says them."""
        failed = [a for a in self.actions if a.error_code or a.error_message or a.status in ("ERROR", "FAILED",
                                                                                            "KILLED")]
        said = "; ".join(f"action '{a.name}' {a.status}" + (f" ({a.error_code})" if a.error_code else "")
                         + (f": {a.error_message}" if a.error_message else "") for a in failed)
        return said or "Oozie gave no reason for it"


def configuration_xml(properties: dict[str, str]) -> bytes:
    """Hadoop's configuration XML of the properties, as OozieClient.writeToXml writes it (names and values
    trimmed)."""
    lines = ["<?xml version='1.0' encoding='UTF-8'?>", "<configuration>"]
    for name, value in properties.items():
        lines.append(f"<property><name>{escape(name.strip())}</name><value>{escape(str(value).strip())}</value>"
                     "</property>")
    lines.append("</configuration>")
    return ("\n".join(lines) + "\n").encode("utf-8")


class OozieClient:
    def __init__(self, access: OozieAccess, timeout: float = _TIMEOUT) -> None:
        self.access, self.timeout = access, timeout
        self.server = masked(access.url)
        self._context = ssl.create_default_context(cafile=access.ca_file) \
            if urlsplit(access.url).scheme.lower() == "https" else None

    def submit(self, properties: dict[str, str]) -> str:
        """A workflow job of the configuration, in PREP: its id."""
        answer = self._call("POST", "jobs", {"user.name": self.access.user}, configuration_xml(properties),
                            expect=201)
        job = answer.get("id") if isinstance(answer, dict) else None
        if not isinstance(job, str) or not job:
            raise OozieError(f"The Oozie server {self.server} accepted the workflow job but answered no job id.")
        return job

    def start(self, job: str) -> None:
        self._call("PUT", f"job/{quote(job)}", {"action": "start", "user.name": self.access.user})

    def kill(self, job: str) -> None:
        self._call("PUT", f"job/{quote(job)}", {"action": "kill", "user.name": self.access.user})

    def suspend(self, job: str) -> None:
        self._call("PUT", f"job/{quote(job)}", {"action": "suspend", "user.name": self.access.user})

    def resume(self, job: str) -> None:
        self._call("PUT", f"job/{quote(job)}", {"action": "resume", "user.name": self.access.user})

    def info(self, job: str) -> JobInfo:
        answer = self._call("GET", f"job/{quote(job)}", {"show": "info"})
        if not isinstance(answer, dict) or not isinstance(answer.get("status"), str):
            raise OozieError(f"The Oozie server {self.server} answered no status for the job {job}.")
        actions = tuple(ActionInfo(str(a.get("name")), str(a.get("status")), a.get("errorCode") or None,
                                   a.get("errorMessage") or None)
                        for a in answer.get("actions") or () if isinstance(a, dict))
        return JobInfo(job, answer["status"], actions)

    def _call(self, method: str, resource: str, params: dict[str, str], body: bytes | None = None,
              expect: int = 200) -> Any:
        url = f"{self.access.url}/v2/{resource}?{urlencode(params)}"
        headers = {"Content-Type": "application/xml;charset=UTF-8"} if body is not None else {}
        if self.access.kerberos:
            headers["Authorization"] = "Negotiate " + _spnego_token(urlsplit(self.access.url).hostname or "",
                                                                    self.server)
        request = urllib.request.Request(url, data=body if body is not None else (b"" if method != "GET" else None),
                                         headers=headers, method=method)
        what = f"{method} {resource.split('/')[0]}"
        try:
            with urllib.request.urlopen(request, timeout=self.timeout, context=self._context) as response:
                status, text = response.status, response.read()
        except urllib.error.HTTPError as err:
            code = err.headers.get("oozie-error-code") or f"HTTP {err.code}"
            message = err.headers.get("oozie-error-message") or err.reason
            raise OozieError(f"The Oozie server {self.server} refused {what}: {code}: {message}") from None
        except (urllib.error.URLError, OSError) as err:
            reason = getattr(err, "reason", err)
            raise OozieError(f"The Oozie server {self.server} cannot be reached ({what}): {reason}; check the "
                             "cluster's workflow interface and that the server runs.") from None
        if status != expect and not (expect == 200 and status == 201):
            raise OozieError(f"The Oozie server {self.server} answered HTTP {status} to {what}, not {expect}.")
        if not text.strip():
            return None
        try:
            return json.loads(text)
        except ValueError:
            raise OozieError(f"The Oozie server {self.server} answered {what} with something that is not JSON.") \
                from None


def _spnego_token(host: str, server: str) -> str:
    """A SPNEGO token for HTTP@host from the ticket cache (the `spnego` package of the `kerberos` extra)."""
    try:
        spnego = importlib.import_module("spnego")
    except ImportError:
        raise UsageError(f"The Oozie server {server} is reached with Kerberos (oozie.client.auth), and the Kerberos "
                         "support is not installed: pip install 'feed-toolkit[kerberos]'.") from None
    try:
        token = spnego.client(hostname=host, service="HTTP", protocol="kerberos").step()
    except Exception as err:  # noqa: BLE001 - gssapi's errors: no ticket, unknown principal
        raise OozieError(f"No Kerberos ticket for the Oozie server {server}: {err}; run kinit.") from None
    return base64.b64encode(token).decode("ascii")
