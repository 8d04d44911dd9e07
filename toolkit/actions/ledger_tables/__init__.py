"""The ledger as tables in the cluster's metastore (`entrypoints/ledger_tables.py` through
`ledger_tables_entry.py`): external JSON tables over the ledger's records and views that tell their kinds apart
(`tables.py`)."""
