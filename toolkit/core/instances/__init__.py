"""Instances of entities on a cluster: their grids, where each instance lives, and what a process
instance reads and writes. Joins the entity model with the time engine; no Spark, no I/O."""
