"""`toolkit rerun --feed F --action A`: the instances of a feed's action (replication, retention, database import and
export) in a window with the status their records in the cluster's ledger give, and the entrypoint call that runs one
again; one module per action, listed in `registry.py`."""
