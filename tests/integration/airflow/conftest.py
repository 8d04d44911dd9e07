"""The real Airflow of the Airflow tests (tests/airflow_server.py), started once for this package's tests and
stopped when they are done: its scheduler and DAG processor would otherwise take a quarter of a core for the rest of
the suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.airflow_server import AirflowServer, running_airflow


@pytest.fixture(scope="package")
def airflow(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AirflowServer]:
    with running_airflow(tmp_path_factory.mktemp("airflow")) as server:
        yield server
