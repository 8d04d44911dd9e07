"""Where the tests find Airflow's own Python: a real Airflow in its own virtualenv (`make airflow` builds
<checkout>/.airflow-venv with the pinned version), or the one FEED_TOOLKIT_AIRFLOW_VENV names."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]


def airflow_python() -> Path:
    """$FEED_TOOLKIT_AIRFLOW_VENV/bin/python, else <checkout>/.airflow-venv/bin/python; the test fails otherwise."""
    named = os.environ.get("FEED_TOOLKIT_AIRFLOW_VENV")
    venv = Path(named) if named else CHECKOUT / ".airflow-venv"
    python = venv / "bin" / "python"
    if not python.is_file():
        pytest.fail(f"No Airflow Python at {python}: run `make airflow` (it builds .airflow-venv with the pinned "
                    "apache-airflow), or set FEED_TOOLKIT_AIRFLOW_VENV to a virtualenv that has it.")
    return python
