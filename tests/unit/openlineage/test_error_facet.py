"""A run's FAIL event says why in its errorMessage facet (toolkit/services/openlineage/events.py), masked by the one
masker (toolkit/secrets_masking.py): a password the error quotes is never sent to the backend nor kept in the ledger."""

from __future__ import annotations

from datetime import datetime, timezone

from toolkit.services.openlineage.events import run_event
from toolkit.services.openlineage.facts import RunFacts
from toolkit.services.openlineage.naming import JobName


def test_the_error_of_a_failed_run_is_sent_without_its_password() -> None:
    facts = RunFacts(JobName("feed-toolkit.primary", "import.orders"), "01890d7e-6a3e-7c2b-9b8f-000000000001", "r1",
                     "import", "orders", "primary")
    error = "Cannot connect to jdbc:sqlserver://db:1433;databaseName=sales;password={Pw1;s3cr3t}: refused"

    event = run_event(facts, "FAIL", datetime(2026, 11, 21, 10, tzinfo=timezone.utc), [], [], status="FAILED",
                      error=error)

    assert event["run"]["facets"]["errorMessage"]["message"] == (
        "Cannot connect to jdbc:sqlserver://db:1433;databaseName=sales;password=***: refused")
