"""Java helpers of the storage layer (`jvm/*.java`, Java package `feedtoolkit`), built by `make` with javac into
the toolkit's jar (`jvm/feed-toolkit-jvm.jar`, package data): work that would cost a py4j round trip per file
(0.1-0.3 ms each) runs as one call per batch.

`build_session` puts the jar on `spark.jars`, so a JVM it starts has the classes on its class path (and ships
them to executors). A JVM started without it (`spark-submit` without `--jars`, a session made elsewhere) gets
them from the jar file through a class loader of their own, whose parent sees Hadoop's classes. Each class is
looked up once per JVM and stays loaded while the py4j gateway lives."""

from __future__ import annotations

import threading
import weakref
from importlib import resources
from typing import Any

from toolkit.errors import UsageError

PACKAGE = "feedtoolkit"
JAR_NAME = "feed-toolkit-jvm.jar"

_loaded: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()  # gateway -> classes
_loading = threading.Lock()


def jar_path() -> str:
    """The toolkit's jar; a UsageError (exit 2) saying how to build it when it was not built."""
    jar = resources.files("toolkit.core.storage") / "jvm" / JAR_NAME
    if not jar.is_file():
        raise UsageError(f"The toolkit's Java classes are not built ({jar} is missing): run `make install` in the "
                         f"feed-toolkit source tree (it compiles toolkit/core/storage/jvm/*.java with javac).")
    return str(jar)


def jar_file_name(entry: str) -> str:
    """The file name of a jar in a `--jars`/`spark.jars` list (a path or URI): how two lists name the same jar."""
    return entry.rstrip("/").rsplit("/", 1)[-1]


def java_class(gateway: Any, conf: Any, name: str) -> Any:
    """The Java class `feedtoolkit.<name>`: from the JVM's class path when the jar is on it, else from the jar
    file through a class loader whose parent is `conf`'s (Hadoop's classes)."""
    with _loading:
        classes = _loaded.setdefault(gateway, {})
        known = classes.get(name)
        if known is None:
            known = classes[name] = _load(gateway, conf, f"{PACKAGE}.{name}")
        return known


def _load(gateway: Any, conf: Any, qualified: str) -> Any:
    """Asks for the class file first: a class missing from the class path then costs no Java exception."""
    jvm = gateway.jvm
    context = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    if context is not None and context.getResource(qualified.replace(".", "/") + ".class") is not None:
        return jvm.java.lang.Class.forName(qualified, True, context)
    urls = gateway.new_array(jvm.java.net.URL, 1)
    urls[0] = jvm.java.io.File(jar_path()).toURI().toURL()
    loader = jvm.java.net.URLClassLoader(urls, conf.getClass().getClassLoader())
    return jvm.java.lang.Class.forName(qualified, True, loader)


def new_instance(gateway: Any, java_type: Any, *arguments: Any) -> Any:
    """`new Type(arguments...)` through reflection (py4j cannot call a constructor of a class it got from
    another class loader)."""
    array = gateway.new_array(gateway.jvm.java.lang.Object, len(arguments))
    for index, argument in enumerate(arguments):
        array[index] = argument
    return java_type.getConstructors()[0].newInstance(array)
