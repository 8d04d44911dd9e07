"""A datasource's table as OpenLineage names it (https://openlineage.io/docs/spec/naming), through the client's own
naming classes: PostgreSQL `postgres://host:port` + `database.schema.table` (schema `public` unless the table
names one), MySQL and MariaDB `mysql://host:port` + `database.table`; any other database `<type>://host:port` +
`database.table` (or the table alone when its URL names no database), a `generic` one named by its URL's
subprotocol (`jdbc:sqlserver:` -> `sqlserver://host:port`, the spec's SQL Server).

The host, port and database are read from the URL by core/storage/jdbc/server.py, which takes every form a driver
does and keeps only what a host, port or database name can be: the namespace and name never hold a user, a
password or another property of the URL."""

from __future__ import annotations

import re

from toolkit.core.entities.model import Datasource, DatasourceType
from toolkit.core.storage.jdbc.endpoint import JdbcEndpoint
from toolkit.services.openlineage.facts import DatasetUse
from toolkit.services.openlineage.naming import DatasetName

_SUBPROTOCOL = re.compile(r"(?i)jdbc:([a-z][a-z0-9]*):")


def table_dataset(datasource: Datasource, endpoint: JdbcEndpoint, table: str) -> DatasetName:
    from openlineage.client.naming import dataset as naming

    host, port = endpoint.host_and_port
    database = endpoint.database
    schema, _, name = table.rpartition(".")
    if host and port and database:
        found: naming.DatasetNaming | None = None
        if datasource.type is DatasourceType.POSTGRES:
            found = naming.Postgres(host=host, port=port, database=database, schema=schema or "public", table=name)
        elif datasource.type in (DatasourceType.MYSQL, DatasourceType.MARIADB):
            found = naming.MySQL(host=host, port=port, database=database, table=table)
        if found is not None:
            return DatasetName(found.get_namespace(), found.get_name())
    address = f"{host}:{port}" if port else host or datasource.name
    return DatasetName(f"{_scheme(datasource, endpoint)}://{address}", f"{database}.{table}" if database else table)


def _scheme(datasource: Datasource, endpoint: JdbcEndpoint) -> str:
    """The datasource's type; a `generic` one's URL subprotocol when it is a plain word (`jdbc:sqlserver:`)."""
    if datasource.type is DatasourceType.GENERIC:
        found = _SUBPROTOCOL.match(endpoint.url)
        if found is not None:
            return found[1].lower()
    return datasource.type.value


def table_use(datasource: Datasource, endpoint: JdbcEndpoint, table: str) -> DatasetUse:
    """The table as a run reads or writes it: a dataset of its own, with no feed instances."""
    return DatasetUse.table(datasource.name, table_dataset(datasource, endpoint, table))
