"""`toolkit metrics`: what a cluster's ledger says, as Prometheus metrics (docs/metrics.md).

The ledger is read with the CLI's own readers (`ledger_rows.py`, the SLA check, the ledger's books) into typed
readings (`readings.py`, `entity_readings.py`, `action_readings.py`), which one collector turns into metric families
through prometheus-client (`families.py`), written as node_exporter's textfile or served for a scrape
(`exposition.py`)."""
