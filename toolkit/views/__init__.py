"""The read side: what the `toolkit` command shows without running an action (the plan of a change, the status page,
the graph, instance lineage, metrics, statuses, triage), read from the repo and the ledgers. The commands in `cli/`
print or write what these compute; no view imports an action."""
