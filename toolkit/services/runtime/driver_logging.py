"""How loud the Spark driver is: warnings and errors by default, INFO when asked (docs/logging.md).

Spark logs about fifty INFO lines while a SparkContext starts; people read stderr, so an entrypoint keeps it to what
needs them. The level is set before the SparkContext starts (a level set after it misses those lines), by loading
the toolkit's `log4j2.properties`; a configuration the user gave the driver JVM (`-Dlog4j2.configurationFile`) wins.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

# What an entrypoint's --verbose sets (and a scheduler's line may set): the driver's root log level.
LEVEL_VARIABLE = "FEED_TOOLKIT_LOG_LEVEL"
LEVELS = ("error", "warn", "info", "debug")
DEFAULT_LEVEL = "warn"
PROPERTIES = Path(__file__).with_name("log4j2.properties")
_LEVEL_PROPERTY = "feed-toolkit.log.level"  # read by log4j2.properties
_USER_CONFIGURATION = ("log4j2.configurationFile", "log4j.configurationFile")


def requested_level() -> str:
    """The level asked for through the environment, or the default; an unknown one is the default."""
    level = os.environ.get(LEVEL_VARIABLE, "").strip().lower()
    return level if level in LEVELS else DEFAULT_LEVEL


def configure(jvm: Any, gateway: Any) -> bool:
    """Load the toolkit's logging configuration in the driver JVM `jvm`, unless the user gave one; False when
    Spark would reload its own defaults over it as the SparkContext starts (then give Spark `spark.log.level`)."""
    system = jvm.java.lang.System
    ours = PROPERTIES.as_uri()
    if any(system.getProperty(name) not in (None, ours) for name in _USER_CONFIGURATION):
        return True
    system.setProperty(_LEVEL_PROPERTY, requested_level())
    system.setProperty(_USER_CONFIGURATION[0], ours)
    jvm.org.apache.logging.log4j.core.config.Configurator.reconfigure(jvm.java.net.URI(ours))
    return _forget_sparks_defaults(jvm, gateway)


def _forget_sparks_defaults(jvm: Any, gateway: Any) -> bool:
    """spark-submit loaded Spark's default log4j profile (INFO) before Python ran, and Spark remembers that it did:
    when the SparkContext starts, it reloads that profile over any configuration loaded since. Clear what it
    remembers (a private flag of Spark's `Logging` object, set through reflection); False if this Spark has none."""
    from py4j.protocol import Py4JError

    try:
        logging_class = jvm.java.lang.Class.forName("org.apache.spark.internal.Logging$")
        parameter_types = gateway.new_array(jvm.java.lang.Class, 1)
        parameter_types[0] = jvm.java.lang.Boolean.TYPE
        setter = logging_class.getDeclaredMethod(_SPARK_DEFAULTS_FLAG, parameter_types)
        setter.setAccessible(True)
        arguments = gateway.new_array(jvm.java.lang.Object, 1)
        arguments[0] = False
        setter.invoke(logging_class.getDeclaredField("MODULE$").get(None), arguments)
    except Py4JError:
        return False
    return True


_SPARK_DEFAULTS_FLAG = "org$apache$spark$internal$Logging$$defaultSparkLog4jConfig_$eq"
