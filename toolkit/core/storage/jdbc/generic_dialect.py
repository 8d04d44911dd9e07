"""Standard SQL, for the databases without a dialect module of their own (HSQLDB, DB2, Teradata, and a `generic`
datasource: Derby, say): names in double quotes, stored in upper case when unquoted, and a staging table made by
`CREATE TABLE ... AS (SELECT ...) WITH NO DATA`."""

from toolkit.core.storage.jdbc.dialect import SqlDialect

DIALECT = SqlDialect("generic", ("hsql", "db2", "teradata", "generic"))
