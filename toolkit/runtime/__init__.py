"""What every spark-submit entrypoint shares: the status line and exit codes of DESIGN.md, the common
arguments, and building the Spark session for a cluster."""
