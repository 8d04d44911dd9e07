"""The `spark.*` settings a program was started with by `spark-submit`, read without a SparkContext.

spark-submit's launcher JVM holds its `--conf` settings as system properties and starts the Python application
with the address of its Py4J gateway (`PYSPARK_GATEWAY_PORT`, `PYSPARK_GATEWAY_SECRET`); an action that needs no
Spark (retention of a file feed) reads them through that gateway, which costs a connection, not a driver. A
program not started by spark-submit (`toolkit retain`) has none."""

from __future__ import annotations

import os

_GATEWAY = "PYSPARK_GATEWAY_PORT"  # set by spark-submit's PythonRunner for the application it starts


def launcher_conf(prefix: str) -> dict[str, str]:
    """The launcher's settings whose key starts with `prefix`; empty when no spark-submit started this program."""
    if _GATEWAY not in os.environ:
        return {}
    from pyspark.java_gateway import launch_gateway  # connects to the launcher's gateway: starts no JVM

    gateway = launch_gateway()
    try:
        properties = gateway.jvm.java.lang.System.getProperties()
        return {str(key): str(properties.getProperty(key)) for key in properties.stringPropertyNames()
                if str(key).startswith(prefix)}
    finally:
        gateway.close()
