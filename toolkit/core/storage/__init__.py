"""Where data lives: file systems (Hadoop's through the Spark JVM, or a pure-Python local one) and the
Hive catalog. The only package that talks to the JVM file system API or the metastore; importing it
does not import pyspark (the JVM implementation imports it when it is built)."""
