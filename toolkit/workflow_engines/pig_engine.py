"""Falcon's `pig` engine: accepted so that migrated processes load, not run; lint PR014 says how to port it."""

from toolkit.workflow_engines.engine import WorkflowEngine

ENGINE = WorkflowEngine(
    name="pig", late_workflows=False,
    port_to="the Pig script to a PySpark file defining run(spark, ctx) (engine: pyspark) or to a SQL file "
            "(engine: spark-sql)")
