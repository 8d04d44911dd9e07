"""stderr apart from stdout under spark-submit.

spark-submit runs a Python application as a child whose stderr it merges into its own stdout (Spark's PythonRunner
redirects the error stream), so the sentences for people would land beside the status line that schedulers parse.
The child points its stderr back at the stderr of the spark-submit JVM, its parent, through Linux's /proc; where
that cannot be opened (another OS, a socket), the streams stay merged as before.
"""

from __future__ import annotations

import os
import sys

# Set by spark-submit's PythonRunner for the Python application it starts (and only for it).
_UNDER_SPARK_SUBMIT = "PYSPARK_GATEWAY_PORT"


def separate_stderr() -> bool:
    """Point fd 2 (and `sys.stderr`) at the parent JVM's stderr when it differs from our stdout; True if done."""
    if _UNDER_SPARK_SUBMIT not in os.environ:
        return False
    parent_stderr = f"/proc/{os.getppid()}/fd/2"
    try:
        if os.path.samestat(os.stat(parent_stderr), os.fstat(2)):
            return False
        descriptor = os.open(parent_stderr, os.O_WRONLY | os.O_APPEND)
    except OSError:
        return False
    sys.stderr.flush()
    os.dup2(descriptor, 2)
    os.close(descriptor)
    return True
