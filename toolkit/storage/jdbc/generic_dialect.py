"""ANSI SQL, for the databases without a dialect module of their own (Oracle, HSQLDB, DB2, Netezza, Teradata, and a
`generic` datasource)."""

from toolkit.storage.jdbc.dialect import SqlDialect

DIALECT = SqlDialect("generic", ("oracle", "hsql", "db2", "netezza", "teradata", "generic"))
