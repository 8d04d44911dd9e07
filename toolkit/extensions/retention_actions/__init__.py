"""Retention actions: what a feed's retention does to its expired instances (`clusters[].retention.action`).

Each action is one `*_action.py` module defining `ACTION`, a `RetentionAction` (`action.py`): whether it applies
to a catalog table too, its checks (made before anything is touched, by the retention entrypoint and by lint
FD024 alike) and how it evicts a location's expired instances (`delete_action.py` deletes them, `archive_action.py`
moves them to the archive location). Falcon's `chown` and `chmod` are accepted so that migrated feeds load and
say why they are refused. `registry.py` finds them; the feed schema's enum is kept equal to it by a test. The
plan an action carries out, one location's expired instances, is `location_plan.py` (made by
`toolkit/planners/retention/file_plan.py`).
"""
