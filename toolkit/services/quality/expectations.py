"""Great Expectations, set up once per Python process: a spark-submit has one driver, so a catch-up of 24
instances imports it (about 4 s) and builds its context once. The context is ephemeral (no files, no data docs,
no GX Cloud), sends no usage statistics and draws no progress bars; its one Spark DataFrame datasource takes the
frames the gate hands it, so validation runs in the run's own SparkSession.

Frames are not cached: each expectation's Spark jobs read the instance where it is. Results are asked for in Great
Expectations' BASIC format without sample values: every expectation's success,
observed value and unexpected count, and no extra Spark job per column to collect examples of bad rows.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from typing import TYPE_CHECKING, Any

from toolkit.core.entities.quality_suites import ExpectationSpec, QualitySuite, SuiteError
from toolkit.core.ledger.quality_results import ExpectationOutcome

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

RESULT_FORMAT = {"result_format": "BASIC", "partial_unexpected_count": 0}
_INDEX = "feed_toolkit_index"  # an expectation's place in the suite file, carried through its meta
_validator: Validator | None = None
_early: threading.Thread | None = None


def import_early() -> None:
    """Start importing Great Expectations (about 2.4 s) in a background thread, for a run that will validate:
    called before the Spark session starts, the import overlaps the JVM's start-up, as the OpenLineage client's
    does. Only the import: the context, whose Spark datasource needs the session, is made on first use. An
    import that fails here is retried, and reported, where the gate needs it."""
    global _early
    if _early is None and _validator is None:
        _early = threading.Thread(target=_import_quietly, daemon=True, name="great-expectations-import")
        _early.start()


def _import_quietly() -> None:
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
    try:
        import great_expectations  # noqa: F401
        import great_expectations.data_context.types.base  # noqa: F401
    except Exception:  # noqa: BLE001, S110 - the gate imports it again and says what failed
        pass


class MissingLibraryError(SuiteError):
    """Great Expectations is not installed where the gate runs (exit 2)."""


def validator() -> Validator:
    """The process's one Great Expectations set-up, made on first use."""
    global _validator
    if _validator is None:
        if _early is not None:
            _early.join()  # never two threads importing it at once
        _validator = Validator()
    return _validator


class Validator:
    def __init__(self) -> None:
        os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
        try:
            import great_expectations as gx
            from great_expectations.data_context.types.base import (
                DataContextConfig,
                InMemoryStoreBackendDefaults,
                ProgressBarsConfig,
            )
        except ImportError as err:
            raise MissingLibraryError(
                f"A feed declares a quality suite, but Great Expectations cannot be imported here ({err}): install "
                "the toolkit's `quality` extra (pip install 'feed-toolkit[quality]') where the action runs.") from None
        logging.getLogger("great_expectations").setLevel(logging.WARNING)
        context = gx.get_context(mode="ephemeral", project_config=DataContextConfig(
            store_backend_defaults=InMemoryStoreBackendDefaults(), analytics_enabled=False,
            progress_bars=ProgressBarsConfig(globally=False)))
        # persist=False: Great Expectations would otherwise cache every frame it validates and never release it, so
        # a catch-up would fill the executors' memory and a folder read again (a retry, a fixed instance) would be
        # answered from the cache of its first reading.
        asset = context.data_sources.add_spark(name="feed-toolkit", persist=False).add_dataframe_asset(
            name="instance")
        self._batch_definition = asset.add_batch_definition_whole_dataframe("whole-instance")

    def validate(self, frame: DataFrame, suite: QualitySuite) -> tuple[ExpectationOutcome, ...]:
        """Each expectation of `suite` against `frame`, in the suite's order."""
        batch = self._batch_definition.get_batch(batch_parameters={"dataframe": frame})
        result = batch.validate(_gx_suite(suite), result_format=RESULT_FORMAT)
        # Great Expectations returns its results in an order of its own: each is found by the index in its meta.
        by_index = {int(item.expectation_config.meta[_INDEX]): item for item in result.results}
        return tuple(_outcome(spec, by_index[index]) for index, spec in enumerate(suite.expectations))


def _gx_suite(suite: QualitySuite) -> Any:
    """Great Expectations' suite of the file's expectations; an unknown type or bad arguments are SuiteError."""
    from great_expectations.core import ExpectationSuite
    from great_expectations.expectations.expectation_configuration import ExpectationConfiguration

    gx_suite = ExpectationSuite(name=suite.name)
    for index, spec in enumerate(suite.expectations):
        try:
            configuration = ExpectationConfiguration(type=spec.type, kwargs=dict(spec.kwargs), meta={_INDEX: index})
            # add_expectation, not add_expectation_configuration: that one replaces an expectation of the same
            # type and column (a lower and an upper bound of one column are two expectations here).
            gx_suite.add_expectation(configuration.to_domain_obj())
        except Exception as err:  # Great Expectations' own errors say what is wrong with the expectation
            raise SuiteError(f"Expectation {index + 1} of the quality suite {suite.path} ({spec.type}) is not one "
                             f"Great Expectations can run: {_first_line(err)}. Correct its type or kwargs.") from None
        if len(gx_suite.expectations) != index + 1:
            raise SuiteError(f"Expectation {index + 1} of the quality suite {suite.path} ({spec.type}) is one Great "
                             "Expectations takes for an earlier one of the file (the same type and arguments once "
                             "its defaults are filled in): remove one of them.")
    return gx_suite


def _outcome(spec: ExpectationSpec, item: Any) -> ExpectationOutcome:
    result = item.result or {}
    error = _raised(item.exception_info)
    return ExpectationOutcome(
        type=spec.type, success=bool(item.success) and error is None, columns=spec.columns,
        observed_value=_plain(result.get("observed_value")), unexpected_count=_count(result.get("unexpected_count")),
        element_count=_count(result.get("element_count")), kwargs=_plain(dict(spec.kwargs)), error=error)


def _raised(info: Any) -> str | None:
    """The message of an exception Great Expectations caught while evaluating an expectation (a missing column):
    its info is one record, or one per metric it failed to compute."""
    if not isinstance(info, dict):
        return None
    records = [info] if "raised_exception" in info else [value for value in info.values() if isinstance(value, dict)]
    for record in records:
        if record.get("raised_exception"):
            return _first_line(record.get("exception_message"))
    return None


def _plain(value: Any) -> Any:
    """`value` as JSON would carry it (numpy numbers, dates and the like become numbers or text)."""
    return json.loads(json.dumps(value, default=lambda v: v.item() if hasattr(v, "item") else str(v)))


def _count(value: Any) -> int | None:
    return None if value is None else int(value)


def _first_line(value: Any) -> str:
    text = str(value or "").strip()
    return text.splitlines()[0] if text else "no reason given"
