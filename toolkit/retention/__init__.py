"""Retention: delete the instances of a feed on a cluster that are older than the cluster's retention
limit, and nothing else (`cutoff` when, `file_plan` what, `evict` how, `tables` for catalog tables,
`report` the record, `run` the whole action)."""
