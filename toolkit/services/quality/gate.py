"""A data-quality gate: an instance about to be published is checked against its feed's suites (and a producing
output's own), in the run's SparkSession, before anything of it is visible. A failing `block` gate stops the
publication (`QualityBlocked`: the attempt fails, the retry policy applies); a failing `warn` gate lets it go on,
recorded and told. Great Expectations is imported only when an instance has a gate to pass."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Feed, Quality
from toolkit.core.entities.quality_suites import QualitySuite, read_suite
from toolkit.core.ledger.quality_results import GateResult
from toolkit.errors import ToolkitError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


class QualityBlocked(ToolkitError):
    """An instance failed a `block` gate: nothing is published; the attempt fails and may be retried (exit 1)."""

    def __init__(self, results: Sequence[GateResult]) -> None:
        blocking = [result for result in results if result.blocks]
        super().__init__("Nothing was published: " + "; ".join(result.describe_failures() for result in blocking)
                         + " (its on-failure is block)")
        self.results = tuple(results)


class QualityGate:
    """The gates of one run: suites are read from the config repo `root` once, Great Expectations set up once per
    process (toolkit/services/quality/expectations.py)."""

    def __init__(self, root: Path | str, log: Callable[[str], None] = print) -> None:
        self.root, self.log = Path(root), log
        self._suites: dict[str, QualitySuite] = {}

    def suite(self, path: str) -> QualitySuite:
        if path not in self._suites:
            self._suites[path] = read_suite(self.root, path)
        return self._suites[path]

    def check(self, feed: Feed, t: datetime, gates: Sequence[Quality], location: str,
              frame: Callable[[], DataFrame]) -> list[GateResult]:
        """Each of `gates` against the instance of `feed` at `t` that `frame` reads from `location`; [] without
        gates (nothing is read, nothing imported)."""
        if not gates:
            return []
        suites = [self.suite(gate.suite) for gate in gates]  # a bad suite is exit 2 before any data is read
        from toolkit.services.quality.expectations import validator

        checker, data = validator(), frame()
        results = []
        for gate, suite in zip(gates, suites, strict=True):
            began = time.perf_counter()
            outcomes = checker.validate(data, suite)
            result = GateResult(feed.name, format_timestamp(t), suite.path, suite.name, gate.on_failure, location,
                                outcomes, time.perf_counter() - began)
            verdict = "passed" if result.success else f"FAILED ({gate.on_failure.value})"
            self.log(f"quality: feed '{feed.name}' {result.time}: suite {suite.path} {verdict}, "
                     f"{result.passed}/{len(outcomes)} expectations held in {result.seconds:.1f} s")
            results.append(result)
        return results


def require_passing(results: Iterable[GateResult]) -> None:
    """QualityBlocked when any of `results` blocks; checked after every output's gates, before any publication."""
    checked = list(results)
    if any(result.blocks for result in checked):
        raise QualityBlocked(checked)


def warnings_of(results: Iterable[GateResult]) -> list[GateResult]:
    """The failed `warn` gates: published anyway, and told."""
    return [result for result in results if not result.success and not result.blocks]
