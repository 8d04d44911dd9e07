"""Shared samples of the entity tests: the template repo, and small repos written from YAML snippets."""

from __future__ import annotations

import textwrap
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"

CLUSTER = """\
kind: cluster
name: {name}
interfaces:
  write:
    endpoint: file:///tmp/{name}
locations:
  staging: /staging
"""

FEED = """\
kind: feed
name: {name}
frequency: hours(1)
clusters:
  - name: {cluster}
    validity:
      start: 2026-01-01T00:00Z
      end: 2027-01-01T00:00Z
locations:
  data: /data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}
"""

PROCESS = """\
kind: process
name: {name}
clusters:
  - name: {cluster}
    validity:
      start: 2026-01-01T00:00Z
      end: 2027-01-01T00:00Z
frequency: hours(1)
inputs:
  - name: source
    feed: {input}
    start: now(0,0)
    end: now(0,0)
outputs:
  - name: result
    feed: {output}
    instance: now(0,0)
workflow:
  engine: pyspark
  path: workflows/{name}.py
"""


def write_files(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write `files` (relative path -> YAML text, dedented, or raw bytes) under `root`; returns `root`."""
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content), encoding="utf-8")
    return root
