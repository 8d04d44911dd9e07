"""Relational databases through JDBC, for the database import and export (toolkit/actions/database_import/,
toolkit/actions/database_export/): where a database is and who connects (`endpoint.py`), the SQL each kind of database
speaks (one `*_dialect.py` module per dialect, found by `registry.py`), connections and transactions in the Spark
driver's JVM (`connection.py`) and Spark's JDBC source for the rows themselves (`tables.py`)."""
