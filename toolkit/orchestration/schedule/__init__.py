"""What keeps a config repo's entities running on the scheduler a team already has: the calls each cluster needs
(process instances, late checks, retention, replication, the data-trigger sweep, ingest, SLA checks), rendered as a
crontab, an Oozie bundle or Airflow DAG files, and Airflow asset events from the ledger's dataset events."""
