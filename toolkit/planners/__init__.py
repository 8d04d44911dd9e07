"""Pure planners that an action and `toolkit plan` both use, so that the plan of a change counts what the action
will do: retention's cut-off and the plan of a feed's locations (`retention/`), and which instance a replication
target copies (`replication.py`). They read; they never delete, copy or write."""
