"""What the actions share around their own steps: the runtime (entry frame, session, the one lifecycle, status
line), OpenLineage events, notices to people, quality gates, outputs staged then published, and datasource access."""
