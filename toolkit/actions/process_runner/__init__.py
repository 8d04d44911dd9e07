"""The process runner: one instance of a process per call. Its plan (what it reads and writes) comes from
toolkit/core/instances/plan.py; here it waits for the required inputs, runs the workflow engine (engines/), publishes
the outputs atomically (toolkit/services/staged_outputs/), retries by the retry policy (retry_policy.py) and records
everything in the ledger (runner.py); late data is checked by late_policy.py and late_check.py. The entry
modules of entrypoints/process.py and entrypoints/late_check.py are process_entry.py and late_check_entry.py."""
