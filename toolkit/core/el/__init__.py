"""The time engine: frequencies, time zones, instance grids, EL functions, path and partition templates.

Pure Python, no Spark: the linter and the CLI use it without a JVM.
"""
