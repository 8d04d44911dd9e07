"""`toolkit report`: the status page of a cluster's feeds and processes over a window, one cell per instance."""
