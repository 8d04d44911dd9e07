"""What every spark-submit entrypoint shares: the status line and exit codes of docs/exit-codes.md, the common
arguments, and building the Spark session for a cluster."""
