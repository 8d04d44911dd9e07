"""`toolkit status`, `summary`, `rerun` and `entity-status`: the rows of a process's instances with the status an
operator should see (`instance_rows.py`), the state of a cluster's entities (`entity_states.py`) and the instances
run with another definition than a git revision's (`changed_since.py`)."""
