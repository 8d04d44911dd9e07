"""The `spark-sql` engine: a SQL file's statements, run in order by Spark SQL (`sql_statements.py`)."""

from toolkit.extensions.workflow_engines.engine import WorkflowEngine

ENGINE = WorkflowEngine(name="spark-sql", prepare="toolkit.extensions.workflow_engines.text_workflow:prepare_sql")
