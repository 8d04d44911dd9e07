"""`toolkit trigger --notify airflow`: each new dataset event of a cluster's ledger (publications and replacements)
posted once to an Airflow API server as an asset event, so that Airflow's asset-aware DAGs run on the toolkit's data.
Airflow consumes the ledger's events and is never their record: each delivery is claimed and recorded in the ledger
(deliveries.py), and an Airflow that cannot be reached loses nothing (its events stay pending for the next call)."""
