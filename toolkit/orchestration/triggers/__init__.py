"""Data-aware triggering: the sweep (`toolkit trigger`) that starts a data-triggered process when its data is
published. `state` is what a sweep remembers, `instance_due` decides which instances of a process with a
frequency are due, `batch_due` whether a batch consumer is, `launch` starts the runs, `sweep` puts them together.
No Spark and no JVM: a sweep with nothing due reads the new journal entries and its state, and returns."""
