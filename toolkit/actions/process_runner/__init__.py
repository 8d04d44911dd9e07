"""The process runner: one instance of a process per call (runner.py). Its plan (what it reads and writes) comes from
toolkit/core/instances/plan.py; here it waits for the required inputs (input_wait.py), runs the workflow through its
engine (toolkit/extensions/workflow_engines/) and publishes the outputs atomically (publishing.py, through
toolkit/services/staged_outputs/), retries by the retry policy (retry_policy.py) and records everything in the ledger
(instance_records.py); late data is checked by late_policy.py and late_check.py. The entry
modules of entrypoints/process.py and entrypoints/late_check.py are process_entry.py and late_check_entry.py."""
