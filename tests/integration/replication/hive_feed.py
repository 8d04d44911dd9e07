"""The table feed of the Hive export and import tests: `sessions`, daily, on primary (source) and backup
(target)."""

from __future__ import annotations

import textwrap


def sessions_feed(source_uri: str, target_uri: str) -> str:
    """Its YAML, with the catalog URIs (`catalog:<db>:<table>#<spec>`) of its table on primary and on backup."""
    return textwrap.dedent(f"""\
        kind: feed
        name: sessions
        description: Web sessions per day, a Hive table replicated from primary to backup by export and import.
        frequency: days(1)
        timezone: UTC
        clusters:
          - name: primary
            type: source
            validity: {{start: "2026-01-01T00:00Z", end: "2099-01-01T00:00Z"}}
            table: {{uri: "{source_uri}"}}
          - name: backup
            type: target
            validity: {{start: "2026-01-01T00:00Z", end: "2099-01-01T00:00Z"}}
            table: {{uri: "{target_uri}"}}
        """)
