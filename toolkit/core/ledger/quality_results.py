"""What a data-quality gate found, as immutable records and their JSON form: the attempt's ledger record keeps it
under `quality`, the status line says it in short (`quality: 11/12 passed`) and lineage turns it into the spec's
data quality assertions facet. No Spark and no Great Expectations here: the ledger and the CLI read it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolkit.core.entities.model import OnFailure


@dataclass(frozen=True)
class ExpectationOutcome:
    """One expectation of a suite against one instance: Great Expectations' `type`, the `columns` it names, whether
    it held, what was observed (a row count, a mean ...) and how many rows broke it (for row-by-row expectations).
    `error`: the expectation could not be evaluated (a column the data lacks): it did not hold."""

    type: str
    success: bool
    columns: tuple[str, ...] = ()
    observed_value: Any = None
    unexpected_count: int | None = None
    element_count: int | None = None
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = None

    @property
    def label(self) -> str:
        return f"{self.type}({', '.join(self.columns)})" if self.columns else self.type

    def describe(self) -> str:
        """`expect_column_values_to_not_be_null(url): 1000 of 1000000 unexpected`, as failures are told."""
        if self.error is not None:
            return f"{self.label}: {self.error}"
        if self.unexpected_count is not None:
            total = f" of {self.element_count}" if self.element_count is not None else ""
            return f"{self.label}: {self.unexpected_count}{total} unexpected"
        return f"{self.label}: observed {self.observed_value!r}"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "success": self.success, "columns": list(self.columns),
                "observed_value": self.observed_value, "unexpected_count": self.unexpected_count,
                "element_count": self.element_count, "kwargs": dict(self.kwargs), "error": self.error}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ExpectationOutcome:
        return cls(str(data["type"]), bool(data["success"]), tuple(data.get("columns") or ()),
                   data.get("observed_value"), data.get("unexpected_count"), data.get("element_count"),
                   dict(data.get("kwargs") or {}), data.get("error"))


@dataclass(frozen=True)
class GateResult:
    """One suite checked against one feed instance (`time`, yyyy-MM-ddTHH:mmZ) where it was about to be published
    (`location`: the staged folder or partition), and what `on_failure` made of a failure."""

    feed: str
    time: str
    suite: str  # the suite file, relative to the config repo
    suite_name: str
    on_failure: OnFailure
    location: str
    expectations: tuple[ExpectationOutcome, ...]
    seconds: float = 0.0

    @property
    def success(self) -> bool:
        return all(outcome.success for outcome in self.expectations)

    @property
    def passed(self) -> int:
        return sum(1 for outcome in self.expectations if outcome.success)

    @property
    def blocks(self) -> bool:
        """Whether this result stops the publication."""
        return not self.success and self.on_failure is OnFailure.BLOCK

    @property
    def failures(self) -> tuple[ExpectationOutcome, ...]:
        return tuple(outcome for outcome in self.expectations if not outcome.success)

    def describe_failures(self) -> str:
        """One sentence: which expectations of which suite failed for which instance."""
        failed = self.failures
        shown = "; ".join(outcome.describe() for outcome in failed[:5]) + (" ..." if len(failed) > 5 else "")
        return (f"feed '{self.feed}' {self.time} failed {len(failed)} of {len(self.expectations)} expectations of "
                f"the quality suite {self.suite}: {shown}")

    def to_json(self) -> dict[str, Any]:
        return {"feed": self.feed, "time": self.time, "suite": self.suite, "suite_name": self.suite_name,
                "on_failure": self.on_failure.value, "location": self.location, "success": self.success,
                "passed": self.passed, "evaluated": len(self.expectations), "seconds": round(self.seconds, 3),
                "expectations": [outcome.to_json() for outcome in self.expectations]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GateResult:
        return cls(str(data["feed"]), str(data["time"]), str(data["suite"]), str(data.get("suite_name", "")),
                   OnFailure(data.get("on_failure", OnFailure.BLOCK.value)), str(data.get("location", "")),
                   tuple(ExpectationOutcome.from_json(item) for item in data.get("expectations", ())),
                   float(data.get("seconds", 0.0)))


def summary(results: Iterable[GateResult]) -> str | None:
    """`11/12 passed` over every expectation of `results`, or None when no gate ran: the status line's `quality`."""
    checked = list(results)
    if not checked:
        return None
    evaluated = sum(len(result.expectations) for result in checked)
    return f"{sum(result.passed for result in checked)}/{evaluated} passed"
