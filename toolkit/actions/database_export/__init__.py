"""The database export (`entrypoints/export.py`, Falcon's export policy): one published instance of a feed written
into a staging table of the target database, then loaded into the target table in one transaction that also
records it there (runner.py; the statements: loading.py; the rows: instance_rows.py; the entry: export_entry.py)."""
