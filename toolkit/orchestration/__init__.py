"""What starts the actions on the scheduler a team already has: the generated schedules and their calls
(`schedule/`, with the SLA check and the Airflow notifier) and the data-trigger sweep (`triggers/`). No Spark."""
