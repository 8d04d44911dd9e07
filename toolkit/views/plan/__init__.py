"""`toolkit plan`: what a change to the config repo will do to the data on the clusters, before it is merged."""
