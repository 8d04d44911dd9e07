"""Workflow engines: each runs one kind of workflow file in the entrypoint's own SparkSession.

`pyspark` runs a Python file's `run(spark, ctx)`; `spark-sql` and `hive` run a SQL file's statements in
order with `${name}` substituted. Falcon's `spark` engine runs no file in this session: its application gets its
own spark-submit (`spark_submit_engine`). A failure of the workflow is a `WorkflowError`: one sentence, retried
by the process's policy.

The engines by name: `engine_registry.py`; their error: `workflow_error.py`.
"""
