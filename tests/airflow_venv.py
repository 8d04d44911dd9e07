"""Where the tests find Airflow: a real Airflow in its own virtualenv (`make airflow` builds <checkout>/.airflow-venv
with the pinned version), or the one FEED_TOOLKIT_AIRFLOW_VENV names. A missing one fails the test, never skips it:
CI builds it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]
VENV_VARIABLE = "FEED_TOOLKIT_AIRFLOW_VENV"
VERSION = "3.3.2"


def airflow_bin(program: str) -> Path:
    """`program` (python, airflow) of Airflow's virtualenv."""
    venv = Path(os.environ.get(VENV_VARIABLE) or CHECKOUT / ".airflow-venv")
    path = venv / "bin" / program
    if not os.access(path, os.X_OK):
        pytest.fail(f"Airflow {VERSION} is not installed in {venv} (no {path}): run `make airflow` in {CHECKOUT} (or "
                    f"set {VENV_VARIABLE} to a virtualenv with apache-airflow=={VERSION}).", pytrace=False)
    return path


def airflow_python() -> Path:
    return airflow_bin("python")
