"""Falcon's `spark` engine: the application named by spark-attributes.jar, run with its own spark-submit
(`spark_submission.py`); workflow.path is Falcon's application folder, which is not read."""

from toolkit.extensions.workflow_engines.engine import WorkflowEngine, WorkflowForm

ENGINE = WorkflowEngine(name="spark", form=WorkflowForm.FOLDER, late_workflows=False,
                        prepare="toolkit.extensions.workflow_engines.spark_submission:prepare_submission")
