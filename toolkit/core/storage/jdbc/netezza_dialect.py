"""Netezza: standard SQL but for its staging table, made by a query of no row: Netezza's CREATE TABLE AS takes a
query, and no Netezza is here to check `WITH NO DATA` against."""

from toolkit.core.storage.jdbc.dialect import SqlDialect

DIALECT = SqlDialect("netezza", ("netezza",), with_no_data=False)
