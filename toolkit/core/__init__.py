"""What everything stands on, from the bottom up: the time engine (`el/`), the typed entities and the config repo
(`entities/`), where data lives (`storage/`), instances of entities on a cluster (`instances/`) and the ledger, the
state that outlives a run (`ledger/`)."""
