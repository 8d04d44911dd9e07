"""Oracle: standard SQL but for its own types (VARCHAR2; NUMBER(19) for a BIGINT, which it does not have) and its
CREATE TABLE AS, which has no `WITH NO DATA`: a staging table is made by a query of no row."""

from toolkit.core.storage.jdbc.dialect import SqlDialect

DIALECT = SqlDialect("oracle", ("oracle",), text_type="VARCHAR2(4000)", with_no_data=False, varchar_type="VARCHAR2",
                     bigint_type="NUMBER(19)")
