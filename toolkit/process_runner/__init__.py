"""The process runner: one instance of a process per call. Resolve its inputs and outputs (plan.py over
availability.py and inputs.py), wait for the required ones, run the workflow engine (engines/), publish the
outputs atomically (outputs.py), retry by policy (policy.py), record everything in the ledger (runner.py);
late data is checked by late_policy.py and late_check.py."""
