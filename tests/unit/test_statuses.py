"""The one Status enum reads and writes as its text: in JSON records and status lines, in f-strings and messages,
and compared with the text a record read back holds, so records written before it are read the same."""

from __future__ import annotations

import json

from toolkit.core.ledger.records import STATUSES
from toolkit.services.runtime.status import EXIT_CODES
from toolkit.statuses import Status


def test_a_status_is_its_text_everywhere() -> None:
    assert json.dumps({"status": Status.TIMEDOUT}) == '{"status": "TIMEDOUT"}'
    assert f"{Status.FAILED} after {Status.WAITING:>9}" == "FAILED after   WAITING"
    assert str(Status.SKIPPED) == "SKIPPED" and Status.SKIPPED == "SKIPPED"
    assert json.loads(json.dumps(Status.KILLED)) in STATUSES


def test_every_status_line_status_has_an_exit_code_looked_up_by_its_text() -> None:
    assert {status.value: EXIT_CODES[status.value] for status in Status if status in EXIT_CODES} == {
        "WAITING": 3, "SUCCEEDED": 0, "FAILED": 1, "TIMEDOUT": 1, "SKIPPED": 4, "BLOCKED": 5, "INVALID": 2,
        "DRY_RUN": 0, "KILLED": 1}  # KILLED: process.py ended by `toolkit kill` (issue 37)
