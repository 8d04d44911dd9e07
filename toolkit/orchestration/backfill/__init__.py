"""`toolkit backfill`: a window of nominal times over processes and replications, run in dependency order through
the real entrypoints, resumed from the ledger by the same call (docs/scheduling.md, "Backfills")."""
