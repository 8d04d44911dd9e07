"""Data-quality gates: instances checked against Great Expectations suites before they are published."""
