"""Falcon's default `oozie` engine: workflow.path is an Oozie workflow application (a folder holding
workflow.xml) on the cluster, submitted to the cluster's Oozie server as Falcon did (`oozie_workflow.py`)."""

from toolkit.extensions.workflow_engines.engine import WorkflowEngine, WorkflowForm

ENGINE = WorkflowEngine(name="oozie", form=WorkflowForm.FOLDER, oozie=True, late_workflows=False,
                        prepare="toolkit.extensions.workflow_engines.oozie_workflow:prepare_oozie")
