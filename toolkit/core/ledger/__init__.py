"""The ledger: the state that outlives a run, as small JSON files on the cluster's own file system.

Everything lives under `<cluster root>/<working location>/ledger/` (layout.py says where each record goes):
per process instance its instance record, one record per attempt, its lock and its late-data checks; per
process the `parallel` slots; per published feed instance a dataset event, listed in the journal by publication
hour (journal.py); per batch consumer its plans, commits and leases (consumption.py); per cluster the control
switches (safemode, suspended entities). Records are written atomically (temporary name, then rename) and locks are
created exclusively, so the ledger needs nothing but the file system. No Spark: the CLI reads a local
cluster's ledger through `storage.local`.
"""
