"""Java helpers of the storage layer (`jvm/*.java`), compiled in the Spark JVM at run time by Janino, which
Spark ships: work that would cost a py4j round trip per file (0.1-0.3 ms each) runs as one call per batch.
Each class is compiled once per JVM and stays loaded while the py4j gateway lives."""

from __future__ import annotations

import threading
import weakref
from importlib import resources
from typing import Any

_compiled: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()  # gateway -> classes
_compiling = threading.Lock()


def java_class(gateway: Any, conf: Any, name: str) -> Any:
    """The Java class `name` from `jvm/<name>.java`, able to see Hadoop's classes (through `conf`'s loader)."""
    with _compiling:
        classes = _compiled.setdefault(gateway, {})
        known = classes.get(name)
        if known is None:
            source = resources.files("toolkit.storage").joinpath("jvm", f"{name}.java").read_text("utf-8")
            compiler = gateway.jvm.org.codehaus.janino.SimpleCompiler()
            compiler.setParentClassLoader(conf.getClass().getClassLoader())
            compiler.cook(f"{name}.java", source)
            known = classes[name] = compiler.getClassLoader().loadClass(name)
        return known


def new_instance(gateway: Any, java_type: Any, *arguments: Any) -> Any:
    """`new Type(arguments...)` through reflection (py4j cannot call a constructor of a runtime-loaded class)."""
    array = gateway.new_array(gateway.jvm.java.lang.Object, len(arguments))
    for index, argument in enumerate(arguments):
        array[index] = argument
    return java_type.getConstructors()[0].newInstance(array)
