"""The database import (`entrypoints/import.py`, Falcon's import policy): one instance of a feed filled from a
database table through Spark's JDBC source, staged and published in one step, an incremental import's high-water
mark advanced in the same publication (runner.py; the rows: source_rows.py; where they go: instance_targets.py;
the entry: import_entry.py)."""
