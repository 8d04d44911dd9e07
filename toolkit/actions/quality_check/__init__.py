"""The quality check of a published instance on demand (`entrypoints/quality_check.py` through
`quality_check_entry.py`): the feed's suite, or another of the config repo, run against it where it lives; it
publishes nothing, it only tells (exit 0 or 1)."""
