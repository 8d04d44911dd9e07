"""Retention: delete the instances of a feed on a cluster that are older than the cluster's retention limit, and
nothing else. What is expired comes from retention's planner (`toolkit/planners/retention/`); this package applies
the feed's retention action to it (`runner.py`, `tables.py` for catalog tables), one feed's call as the entrypoint and
`toolkit retain` make it (`feed_call.py`) or every due feed of a cluster (`cluster_call.py`)."""
