"""Falcon's `pig` engine: workflow.path is a Pig script on the cluster, run in a one-action Oozie workflow by the
cluster's Oozie server as Falcon did (`pig_workflow.py`, `oozie_workflow.py`)."""

from toolkit.extensions.workflow_engines.engine import WorkflowEngine

ENGINE = WorkflowEngine(name="pig", oozie=True, late_workflows=False,
                        prepare="toolkit.extensions.workflow_engines.oozie_workflow:prepare_pig")
