"""Great Expectations through `toolkit/services/quality/expectations.py` on the test SparkSession: every expectation of
a suite file has its own outcome, in the file's order."""

from __future__ import annotations

import pytest

from toolkit.core.entities.quality_suites import ExpectationSpec, QualitySuite
from toolkit.services.quality.expectations import validator


def test_two_expectations_of_one_type_on_one_column_are_both_validated(spark) -> None:
    """Issue 33 (2): Great Expectations' suite keeps one expectation per type and column, so a lower and an upper
    bound on `n` crashed every gate with `KeyError: 0`."""
    frame = spark.createDataFrame([(n,) for n in range(1, 6)], "n int")
    suite = QualitySuite("quality/bounds.json", "bounds", (
        ExpectationSpec("expect_column_values_to_be_between", {"column": "n", "min_value": 1}),
        ExpectationSpec("expect_column_values_to_be_between", {"column": "n", "max_value": 3}),
        ExpectationSpec("expect_column_values_to_not_be_null", {"column": "n"}),
        ExpectationSpec("expect_column_values_to_be_between", {"column": "n", "min_value": 0, "max_value": 9}),
    ))
    outcomes = validator().validate(frame, suite)
    assert [(o.type, dict(o.kwargs), o.success, o.unexpected_count) for o in outcomes] == [
        ("expect_column_values_to_be_between", {"column": "n", "min_value": 1}, True, 0),
        ("expect_column_values_to_be_between", {"column": "n", "max_value": 3}, False, 2),
        ("expect_column_values_to_not_be_null", {"column": "n"}, True, 0),
        ("expect_column_values_to_be_between", {"column": "n", "min_value": 0, "max_value": 9}, True, 0),
    ]


def test_two_entries_great_expectations_takes_for_one_are_refused_naming_the_second(spark) -> None:
    """Equal once Great Expectations fills its defaults in: the second would have no result of its own. (The suite
    is built as the gate builds it, inside the process's Great Expectations set-up, which makes its context.)"""
    from toolkit.core.entities.quality_suites import SuiteError
    from toolkit.services.quality.expectations import _gx_suite

    validator()
    suite = QualitySuite("quality/bounds.json", "bounds", (
        ExpectationSpec("expect_column_values_to_be_between", {"column": "n", "min_value": 1}),
        ExpectationSpec("expect_column_values_to_be_between", {"column": "n", "min_value": 1, "max_value": None}),
    ))
    with pytest.raises(SuiteError, match=r"Expectation 2 of the quality suite quality/bounds.json .*remove one"):
        _gx_suite(suite)
