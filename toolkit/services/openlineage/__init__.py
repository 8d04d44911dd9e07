"""OpenLineage run events of the toolkit's actions: built from what an action read and wrote, sent through the
openlineage-python client when (and only when) the client is configured, and kept in the ledger so that
`toolkit lineage resend` can send what a lineage backend missed. docs/lineage.md has the conventions."""
