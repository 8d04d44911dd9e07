"""`toolkit metrics`: what a cluster's ledger says, as Prometheus metrics (docs/metrics.md).

The ledger is read with the status view's own readers (`toolkit/views/status/instance_rows.py`, the SLA check, the
ledger's books) into typed readings (`readings.py`, `entity_readings.py`, `action_readings.py`), which one collector
turns into metric families through prometheus-client (`families.py`); the command writes them as node_exporter's
textfile or serves them for a scrape (`toolkit/cli/metrics_exposition.py`)."""
