"""The `pyspark` engine: a Python file that defines `run(spark, ctx)`, executed in the entrypoint's session
(`python_workflow.py`)."""

from toolkit.extensions.workflow_engines.engine import WorkflowEngine

ENGINE = WorkflowEngine(name="pyspark", prepare="toolkit.extensions.workflow_engines.text_workflow:prepare_python")
