"""Instance lineage read from the ledgers (`toolkit lineage`): which run produced a feed instance, from which
input instances (with their fingerprints as read, and whether they changed since), upstream across replication to
the source cluster, and which runs consumed it downstream.

`graph` is the immutable result (feed instances on a cluster, runs, the edges between them); `ledgers` opens the
clusters' ledgers and says what an instance is now; `producers` and `readers` take one step up and one step down;
`walk` puts the steps together within the asked depths; `text`, `json_form` and `dot` render the result.
No Spark: everything is read from the ledgers' small JSON files.
"""
