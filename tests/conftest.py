"""Shared test settings: Spark (when a test needs it) stays on loopback, as docs/architecture.md says."""

import os

os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
