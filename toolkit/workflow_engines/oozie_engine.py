"""Falcon's default `oozie` engine: accepted so that migrated processes load (its workflow.path is a folder
holding workflow.xml), not run; lint PR014 says how to port it."""

from toolkit.workflow_engines.engine import WorkflowEngine, WorkflowForm

ENGINE = WorkflowEngine(
    name="oozie", form=WorkflowForm.FOLDER, late_workflows=False,
    port_to="the Oozie workflow's actions to a PySpark file defining run(spark, ctx) (engine: pyspark) or to a SQL "
            "file (engine: spark-sql or hive)")
