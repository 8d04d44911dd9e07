"""Publishing an outside producer's instance: checked where it lives and recorded in the ledger as the toolkit's
own publications are (`publish.py`, shared by `toolkit publish` and `entrypoints/publish.py` through
`publish_entry.py`)."""
