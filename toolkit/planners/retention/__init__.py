"""Retention's planner: the cut-off of a feed's instances (`cutoff.py`), the plan of one location
(`file_plan.py`) and of a feed's locations (`feed_plans.py`), and other feeds' instances in a shared folder kept
(`shared_folders.py`)."""
