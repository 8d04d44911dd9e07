"""A small client of Airflow 3's public REST API (`/api/v2`) for what the notifier needs: find an asset by URI,
tell which of its DAGs are partitioned, post an asset event, list an asset's events. Standard library only: the
sweep runs every minute and must start fast.

Every request has a short timeout and the whole call a budget, so a cron sweep never hangs on Airflow. What goes
wrong is one of two kinds: `AirflowUnreachable` (connection refused, timeout, a 5xx, the budget spent: call again
later, nothing is lost) and `AirflowRefused` (a 4xx: credentials or a request Airflow will not take). Messages name
the URL without credentials and never carry a token or password.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from toolkit.errors import ToolkitError, UsageError
from toolkit.orchestration.schedule.airflow_events.settings import AirflowSettings

PAGE = 100  # Airflow's largest page by default (api.maximum_page_limit)


class AirflowUnreachable(Exception):
    """Airflow did not answer, or answered 5xx: `reason` says why in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class AirflowRefused(ToolkitError):
    """Airflow answered 4xx to a request it should take (exit 1)."""


class AirflowCredentialsRefused(UsageError):
    """Airflow refused the credentials (401, 403): fix the settings (exit 2)."""


@dataclass(frozen=True)
class AirflowAsset:
    asset_id: int
    name: str
    uri: str
    scheduled_dags: tuple[str, ...]


class AirflowClient:
    def __init__(self, settings: AirflowSettings) -> None:
        self.settings = settings
        self.deadline = time.monotonic() + settings.budget
        self._token = settings.token

    def find_asset(self, uri: str) -> AirflowAsset | None:
        """The asset whose URI is exactly `uri` (`uri_pattern` is a substring search), or None."""
        offset = 0
        while True:
            query = urllib.parse.urlencode({"uri_pattern": uri, "limit": PAGE, "offset": offset})
            page = self.get(f"/api/v2/assets?{query}")
            assets = page.get("assets", [])
            for item in assets:
                if item.get("uri") == uri:
                    dags = tuple(str(d["dag_id"]) for d in item.get("scheduled_dags", []))
                    return AirflowAsset(int(item["id"]), str(item.get("name", "")), uri, dags)
            offset += len(assets)
            if not assets or offset >= int(page.get("total_entries", 0)):
                return None

    def partitioned(self, dag_id: str) -> bool:
        """Whether the DAG's timetable is partitioned (an asset event reaches it only with a partition key, and a
        DAG that is not only without one: Airflow 3.3's asset manager)."""
        return bool(self.get(f"/api/v2/dags/{urllib.parse.quote(dag_id, safe='')}").get("timetable_partitioned"))

    def post_event(self, asset_id: int, partition_key: str | None, extra: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {"asset_id": asset_id, "extra": extra}
        if partition_key is not None:
            body["partition_key"] = partition_key
        return self.request("POST", "/api/v2/assets/events", body)

    def events_between(self, asset_id: int, since: str, until: str) -> list[dict[str, Any]]:
        """The asset's events from the instant `since` to `until` (ISO, UTC), oldest first. (Airflow 3.3.2 answers
        500 while a DAG run one of them created is still queued: AirflowUnreachable, asked again next call.)"""
        found: list[dict[str, Any]] = []
        while True:
            query = urllib.parse.urlencode({"asset_id": asset_id, "timestamp_gte": since, "timestamp_lte": until,
                                            "order_by": "timestamp", "limit": PAGE, "offset": len(found)})
            page = self.get(f"/api/v2/assets/events?{query}")
            events = page.get("asset_events", [])
            found += events
            if not events or len(found) >= int(page.get("total_entries", 0)):
                return found

    def get(self, path: str) -> dict[str, Any]:
        return self.request("GET", path)

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        headers = {"Accept": "application/json"}
        if self._token is None and self.settings.username is not None:
            self._token = self._login()
        if self._token is not None:
            headers["Authorization"] = f"Bearer {self._token}"
        return self._send(method, path, body, headers)

    def _login(self) -> str:
        """A JWT from the simple auth manager's token endpoint (`POST /auth/token`; other auth managers give
        tokens their own way: use airflow.token-env for them)."""
        answer = self._send("POST", "/auth/token", {"username": self.settings.username,
                                                    "password": self.settings.password}, {})
        token = answer.get("access_token")
        if not isinstance(token, str) or not token:
            raise AirflowRefused(f"Airflow at {self.settings.url} answered its token endpoint /auth/token without an "
                                 "access_token: use airflow.token-env with a token its auth manager issues.")
        return token

    def _send(self, method: str, path: str, body: dict[str, Any] | None,
              headers: dict[str, str]) -> dict[str, Any]:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise AirflowUnreachable(f"this call's time budget of {self.settings.budget:g} s is spent")
        data = None if body is None else json.dumps(body).encode()
        if data is not None:
            headers = {**headers, "Content-Type": "application/json"}
        request = urllib.request.Request(self.settings.url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=min(self.settings.timeout, remaining)) as response:
                text = response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as err:
            raise self._status_error(method, path, err) from None
        except TimeoutError:
            raise AirflowUnreachable(f"no answer within {min(self.settings.timeout, remaining):.3g} s") from None
        except urllib.error.URLError as err:
            raise AirflowUnreachable(_reason(err.reason)) from None
        except (ConnectionError, OSError) as err:
            raise AirflowUnreachable(_reason(err)) from None
        try:
            answer = json.loads(text) if text else {}
        except json.JSONDecodeError:
            raise AirflowUnreachable(f"{method} {path.split('?')[0]} answered something that is not JSON") from None
        return answer if isinstance(answer, dict) else {"items": answer}

    def _status_error(self, method: str, path: str, err: urllib.error.HTTPError) -> Exception:
        where = f"{method} {path.split('?')[0]}"
        if err.code >= 500:
            return AirflowUnreachable(f"{where} answered HTTP {err.code}")
        if err.code in (401, 403):
            return AirflowCredentialsRefused(
                f"Airflow at {self.settings.url} refused the credentials (HTTP {err.code} to {where}): check "
                "airflow.token-env, or airflow.username with airflow.password-env or airflow.password-file, and that "
                "this user may read assets and DAGs and create asset events.")
        detail = _detail(err)
        return AirflowRefused(f"Airflow at {self.settings.url} refused {where} (HTTP {err.code}{detail}).")


def _reason(err: object) -> str:
    if isinstance(err, TimeoutError):
        return "no answer in time"
    if isinstance(err, ConnectionRefusedError):
        return "connection refused"
    if isinstance(err, OSError) and err.strerror:
        return err.strerror.lower()
    return str(err)


def _detail(err: urllib.error.HTTPError) -> str:
    try:
        detail = json.loads(err.read().decode("utf-8", "replace")).get("detail")
    except (ValueError, AttributeError, OSError):
        return ""
    return f": {str(detail)[:300]}" if detail else ""
