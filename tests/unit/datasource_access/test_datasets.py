"""A datasource's table as a lineage dataset (toolkit/services/datasource_access/datasets.py): the namespace is the
scheme, host and port of the spec (https://openlineage.io/docs/spec/naming) whatever form the URL takes, and neither it
nor the name holds a user, a password or another property of the URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.entities.datasource_samples import DATASOURCE, write_repo
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.jdbc.endpoint import JdbcEndpoint
from toolkit.core.storage.jdbc.registry import dialect_for
from toolkit.services.datasource_access.datasets import table_dataset

SECRET = "Pw1-s3cr3t"


@pytest.mark.parametrize(("kind", "url", "table", "namespace", "name"), [
    ("postgres", f"jdbc:postgresql://db:5432/sales?user=etl&password={SECRET}", "orders", "postgres://db:5432",
     "sales.public.orders"),
    ("mysql", f"jdbc:mysql://etl:{SECRET}@db:3306/sales?useSSL=true", "orders", "mysql://db:3306", "sales.orders"),
    ("generic", f"jdbc:sqlserver://db;databaseName=sales;user=etl;password={SECRET}", "dbo.orders", "sqlserver://db",
     "sales.dbo.orders"),
    ("generic", f"jdbc:sqlserver://db:1433;databaseName=sales;password={{{SECRET};x}}", "dbo.orders",
     "sqlserver://db:1433", "sales.dbo.orders"),
    ("oracle", f"jdbc:oracle:thin:etl/{SECRET}@//db:1521/ORCL", "SALES.ORDERS", "oracle://db:1521",
     "ORCL.SALES.ORDERS"),
    ("teradata", f"jdbc:teradata://db/DATABASE=sales,USER=etl,PASSWORD={SECRET}", "orders", "teradata://db",
     "sales.orders"),
    ("db2", f"jdbc:db2://db:50000/sales:user=etl;password={SECRET};", "orders", "db2://db:50000", "sales.orders"),
])
def test_the_namespace_is_the_scheme_host_and_port_and_the_name_holds_no_secret(
        tmp_path: Path, kind: str, url: str, table: str, namespace: str, name: str) -> None:
    write_repo(tmp_path, DATASOURCE.replace("type: postgres", f"type: {kind}"))
    datasource = ConfigRepo.load(tmp_path).datasource("sales-db")
    endpoint = JdbcEndpoint(url=url, user="etl", password=SECRET, driver_class="org.Driver", jars=("/d.jar",),
                            dialect=dialect_for(kind))

    dataset = table_dataset(datasource, endpoint, table)

    assert (dataset.namespace, dataset.name) == (namespace, name)
