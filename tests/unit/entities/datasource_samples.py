"""A datasource and the feeds that import from and export to it, for the datasource tests (entities, lint, CLI)."""

from __future__ import annotations

from pathlib import Path

SECRET = "s3cr3t-Pa55"  # the password-text of DATASOURCE_TEXT: no output may hold it

DATASOURCE = """\
kind: datasource
name: sales-db
description: The shop's sales database.
type: postgres
colo: west
tags: {owner: sales}
interfaces:
  readonly:
    endpoint: jdbc:postgresql://db.example:5432/sales
    credential:
      type: password-file
      userName: reader
      passwordFile: /secrets/sales-reader.password
  write:
    endpoint: jdbc:postgresql://db.example:5432/sales
    properties: {ssl: true}
  credential:
    type: password-alias
    userName: etl
    passwordAlias:
      alias: sales.password
      providerPath: jceks://hdfs/user/etl/sales.jceks
driver:
  clazz: org.postgresql.Driver
  jar: [/usr/share/java/postgresql.jar]
ACL: {owner: etl, group: sales, permission: "0755"}
"""

DATASOURCE_TEXT = f"""\
kind: datasource
name: sales-db
type: postgres
interfaces:
  readonly:
    endpoint: jdbc:postgresql://db.example:5432/sales
    credential:
      type: password-text
      userName: reader
      passwordText: {SECRET}
driver:
  clazz: org.postgresql.Driver
  jar: [/usr/share/java/postgresql.jar]
"""

CLUSTER = """\
kind: cluster
name: primary
interfaces:
  write:
    endpoint: file:///tmp/primary
locations:
  staging: /staging
  working: /working
"""

IMPORTED = """\
kind: feed
name: customers
frequency: hours(1)
clusters:
  - name: primary
    type: source
    validity:
      start: 2026-01-01T00:00Z
      end: 2027-01-01T00:00Z
    import:
      source:
        name: sales-db
        tableName: customers
        extract:
          type: incremental
          mergepolicy: append
        fields:
          includes: [id, name, updated_at]
      arguments:
        check-column: updated_at
        split-by: id
        num-mappers: 4
locations:
  data: /data/customers/${YEAR}/${MONTH}/${DAY}/${HOUR}
"""

EXPORTED = """\
kind: feed
name: daily-sales
frequency: days(1)
clusters:
  - name: primary
    type: source
    validity:
      start: 2026-01-01T00:00Z
      end: 2027-01-01T00:00Z
    export:
      target:
        name: sales-db
        tableName: daily_sales
        load:
          type: updateonly
      arguments:
        update-key: day
locations:
  data: /data/daily-sales/${YEAR}/${MONTH}/${DAY}
"""


def write_repo(root: Path, datasource: str = DATASOURCE) -> Path:
    """A repo with one cluster, the datasource and the two feeds; returns its root."""
    for folder, name, text in (("clusters", "primary", CLUSTER), ("datasources", "sales-db", datasource),
                               ("feeds", "customers", IMPORTED), ("feeds", "daily-sales", EXPORTED)):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    return root
