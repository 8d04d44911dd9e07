"""The real Airflow of the Airflow tests (tests/airflow_server.py), started once per test session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.airflow_server import AirflowServer, running_airflow


@pytest.fixture(scope="session")
def airflow(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AirflowServer]:
    with running_airflow(tmp_path_factory.mktemp("airflow")) as server:
        yield server
