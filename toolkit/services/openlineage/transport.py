"""Sending events through the openlineage-python client, within a budget: an unreachable or slow backend costs
an action at most `BUDGET_SECONDS` in all, never fails it, and what was not sent stays in the ledger for
`toolkit lineage resend`.

The client (and its import, about 0.4 s: its transports pull in requests and more) is made in a background
thread as soon as lineage is on, while the action starts Spark; the first send waits for it within the budget.
After the first failure nothing more is tried in this call: the backend is down, and each try would cost time.
"""

from __future__ import annotations

import contextlib
import re
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any

BUDGET_SECONDS = 5.0
_URL_SECRETS = re.compile(r"(?<=[?&])([^=&\s]+)=[^&\s]+")


class Emitter:
    def __init__(self, config: Mapping[str, Any], budget: float = BUDGET_SECONDS) -> None:
        self.budget, self.spent = budget, 0.0
        self.failure: str | None = None  # why sending stopped, once it did
        self._client: Any = None
        self._client_error: str | None = None
        self._ready = threading.Thread(target=self._make_client, args=(dict(config),), daemon=True,
                                       name="openlineage-client")
        self._ready.start()

    def _make_client(self, config: dict[str, Any]) -> None:
        try:
            from openlineage.client import OpenLineageClient

            self._client = OpenLineageClient(config=config or None)
        except Exception as err:  # noqa: BLE001 - a bad client configuration must not fail the action
            self._client_error = f"the OpenLineage client could not be configured: {_safe(err)}"

    def send(self, event: dict[str, Any]) -> bool:
        """Whether the backend took `event`; False (at once) once an earlier send failed or the budget is spent."""
        if self.failure is not None:
            return False
        outcome: dict[str, BaseException] = {}

        def emit() -> None:
            try:
                self._ready.join()
                if self._client is not None:
                    self._client.emit(to_run_event(event))
            except BaseException as err:  # noqa: BLE001 - reported below, never raised into the action
                outcome["error"] = err

        began = time.perf_counter()
        worker = threading.Thread(target=emit, daemon=True, name="openlineage-emit")
        worker.start()
        worker.join(max(self.budget - self.spent, 0.0))
        self.spent += time.perf_counter() - began
        if worker.is_alive():
            return self._give_up(f"no answer within the {self.budget:g} s given to lineage")
        if self._client_error is not None:
            return self._give_up(self._client_error)
        if "error" in outcome:
            return self._give_up(_safe(outcome["error"]))
        return True

    def _give_up(self, reason: str) -> bool:
        if self.failure is None:
            self.failure = reason
            print(f"lineage: events not sent ({reason}); they are kept in the ledger: send them with "
                  "`toolkit lineage resend`.", file=sys.stderr, flush=True)
        return False

    def close(self) -> None:
        """Let a transport that sends in the background (async http, kafka) finish, within what is left."""
        if self._client is not None and self.failure is None:
            remaining = max(self.budget - self.spent, 0.0)
            with contextlib.suppress(Exception):  # best effort: every event's fate is already known
                self._client.close(timeout=remaining)


def to_run_event(event: Mapping[str, Any]) -> Any:
    """The client's RunEvent for an event kept as JSON: facets stay plain objects, which the client's serializer
    writes as they are."""
    from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState

    return RunEvent(
        eventType=RunState(event["eventType"]), eventTime=event["eventTime"], producer=event["producer"],
        run=Run(runId=event["run"]["runId"], facets=dict(event["run"].get("facets", {}))),
        job=Job(namespace=event["job"]["namespace"], name=event["job"]["name"],
                facets=dict(event["job"].get("facets", {}))),
        inputs=[InputDataset(namespace=item["namespace"], name=item["name"], facets=dict(item.get("facets", {})),
                             inputFacets=dict(item.get("inputFacets", {}))) for item in event.get("inputs", [])],
        outputs=[OutputDataset(namespace=item["namespace"], name=item["name"], facets=dict(item.get("facets", {})),
                               outputFacets=dict(item.get("outputFacets", {}))) for item in event.get("outputs", [])])


def _safe(err: BaseException) -> str:
    """The error's first line, without the values of URL query parameters (an api_key= must not reach a log)."""
    first = (str(err).strip().splitlines() or [""])[0][:300]
    return f"{type(err).__name__}: {_URL_SECRETS.sub(lambda m: m.group(1) + '=***', first)}"
