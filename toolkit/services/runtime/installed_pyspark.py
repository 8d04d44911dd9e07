"""The pyspark an entrypoint imports: the one installed beside the toolkit when it is the release spark-submit's own.

spark-submit puts `$SPARK_HOME/python/lib/pyspark.zip` and py4j's zip first on the driver's `sys.path`. Python keeps
no compiled bytecode of modules imported from a zip, so every run compiles pyspark's modules from source again: about
0.7 s of each entrypoint's start on this machine (some 200 modules), before any work. When the installed package is
the same release as the zip's (its `version.py` reads the same, as when SPARK_HOME is the pip package's own folder),
the zip is taken off the path and the installed copy, whose bytecode is cached, is imported instead. Another release
(a cluster's Spark beside another pyspark) keeps the zip: the driver's Python must match the JVM's Spark. Executors'
Python workers are not concerned: Spark gives them their own path.
"""

from __future__ import annotations

import os
import sys
import zipfile
from collections.abc import Sequence
from importlib.machinery import PathFinder

PACKAGES = {"pyspark": "pyspark.zip", "py4j": "py4j-"}  # package -> how its zip's file name starts


def prefer_installed_pyspark() -> None:
    """Take spark-submit's zips off `sys.path` where the installed packages are the same release; nothing once
    pyspark is imported (the modules loaded stay what they are)."""
    if "pyspark" not in sys.modules and "py4j" not in sys.modules:
        sys.path[:] = preferred_path(sys.path)


def preferred_path(path: Sequence[str]) -> list[str]:
    """`path` without the zips of packages that an entry of `path` outside any zip holds in the same release."""
    kept = list(path)
    for package, prefix in PACKAGES.items():
        zips = [entry for entry in kept if os.path.basename(entry).startswith(prefix) and entry.endswith(".zip")]
        if not zips:
            continue
        installed = PathFinder.find_spec(package, [entry for entry in kept if not entry.endswith(".zip")])
        if installed is None or not installed.submodule_search_locations:
            continue
        release = _read(os.path.join(list(installed.submodule_search_locations)[0], "version.py"))
        for entry in zips:
            if release is not None and release == _zip_member(entry, f"{package}/version.py"):
                kept.remove(entry)
    return kept


def _read(file: str) -> bytes | None:
    try:
        with open(file, "rb") as source:
            return source.read()
    except OSError:
        return None


def _zip_member(archive: str, member: str) -> bytes | None:
    try:
        with zipfile.ZipFile(archive) as opened:
            return opened.read(member)
    except (OSError, KeyError, zipfile.BadZipFile):
        return None
