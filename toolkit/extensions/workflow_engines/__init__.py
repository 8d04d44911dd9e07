"""Workflow engines: what a process's `workflow.engine` names, and how its workflow runs.

Each engine is one `*_engine.py` module defining `ENGINE`, a `WorkflowEngine` of facts (`engine.py`), found by
`registry.py`; the process schema's enum is kept equal to the registry by a test. `pyspark` runs a Python file's
`run(spark, ctx)`, `spark-sql` and `hive` a SQL file's statements with `${name}` substituted (`text_workflow.py`),
all in the entrypoint's own SparkSession; Falcon's `spark` engine gives its application its own spark-submit
(`spark_submission.py`); Falcon's `oozie` and `pig` hand the workflow to the cluster's Oozie server and follow the
job (`oozie_workflow.py`). A failure of a workflow is a `WorkflowError` (`workflow_error.py`): one sentence,
retried by the process's policy.
"""
