"""A gate's results as OpenLineage's data quality assertions (toolkit/services/openlineage/events.py writes the facet):
one assertion per expectation, `severity` error for a blocking gate and warn otherwise, `actual` what was observed."""

from __future__ import annotations

import json
from collections.abc import Iterable

from toolkit.core.entities.model import OnFailure
from toolkit.core.ledger.quality_results import ExpectationOutcome, GateResult
from toolkit.services.openlineage.facts import QualityAssertion


def assertions_of(results: Iterable[GateResult]) -> tuple[QualityAssertion, ...]:
    return tuple(_assertion(result, outcome) for result in results for outcome in result.expectations)


def _assertion(result: GateResult, outcome: ExpectationOutcome) -> QualityAssertion:
    return QualityAssertion(
        assertion=outcome.type, success=outcome.success,
        column=outcome.columns[0] if len(outcome.columns) == 1 else None,
        severity="error" if result.on_failure is OnFailure.BLOCK else "warn", name=result.suite,
        actual=_actual(outcome), params=dict(outcome.kwargs) or None)


def _actual(outcome: ExpectationOutcome) -> str | None:
    if outcome.error is not None:
        return outcome.error
    if outcome.unexpected_count is not None:
        return f"{outcome.unexpected_count} unexpected"
    return None if outcome.observed_value is None else json.dumps(outcome.observed_value)
