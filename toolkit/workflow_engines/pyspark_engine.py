"""The `pyspark` engine: a Python file that defines `run(spark, ctx)`, executed in the entrypoint's session
(`python_workflow.py`)."""

from toolkit.workflow_engines.engine import WorkflowEngine

ENGINE = WorkflowEngine(name="pyspark", prepare="toolkit.workflow_engines.text_workflow:prepare_python")
