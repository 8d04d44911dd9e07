"""The `hive` engine: a HiveQL file run as `spark-sql` runs SQL, in a session with Hive support (the entrypoint
turns it on for this engine, as it does for a process that reads or writes a table)."""

from toolkit.extensions.workflow_engines.engine import WorkflowEngine

ENGINE = WorkflowEngine(name="hive", hive=True, prepare="toolkit.extensions.workflow_engines.text_workflow:prepare_sql")
