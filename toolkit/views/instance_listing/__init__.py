"""`toolkit instances --listing`: Falcon's instance listing of a file feed, each instance's state, size, creation time
and the run that produced it, read from the cluster's storage and ledger without Spark."""
