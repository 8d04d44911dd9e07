"""A config repo for the import and export tests: one `file://` cluster in a temporary folder, a datasource on a
test server (PostgreSQL or MariaDB, tests/integration/databases.py; or an embedded Derby database, a `generic`
datasource) whose password is in a file under the cluster's root, and feeds that import from it or export to it:

- `orders`: incremental (check column `id`), hourly, the columns it declares, read in 2 slices of `id`;
- `orders-full`: a full snapshot of the same table, hourly, read in one part unless `full_arguments` say;
- `totals`: a daily file feed exported into the table `daily_totals` by `load` (the `export_load` argument).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.integration.databases import DerbyDatabases
from toolkit.devtools.local_database import DatabaseServer

START = "2026-01-01T00:00Z"
DATASOURCE_TYPES = {"postgres": "postgres", "mariadb": "mariadb", "derby": "generic"}  # by the server's kind


@dataclass(frozen=True)
class TransferRepo:
    repo: Path
    root: Path  # the cluster's root
    server: DatabaseServer | DerbyDatabases
    database: str

    def data(self, feed: str) -> Path:
        return self.root / "data" / feed

    def ledger(self) -> Path:
        return self.root / "working" / "ledger"

    def sql(self, statement: str) -> str:
        return self.server.execute(statement, database=self.database, password=self.server.password)


def transfer_repo(folder: Path, server: DatabaseServer | DerbyDatabases, database: str, *,
                  export_load: str = "snapshot", update_key: str | None = None,
                  import_arguments: str = "", full_arguments: str = "") -> TransferRepo:
    """`import_arguments` are added to the arguments of `orders`; `full_arguments`, when given, are those of
    `orders-full` (which has none otherwise)."""
    repo, root = folder / "conf", folder / "cluster"
    for kind in ("clusters", "feeds", "datasources"):
        (repo / kind).mkdir(parents=True, exist_ok=True)
    root.mkdir(parents=True, exist_ok=True)
    (root / "secrets").mkdir(exist_ok=True)
    (root / "secrets" / "db.password").write_text(server.password + "\n", encoding="utf-8")
    (repo / "clusters" / "lake.yaml").write_text(f"""\
kind: cluster
name: lake
interfaces:
  write: {{endpoint: "{root.as_uri()}"}}
locations: {{working: /working, staging: /staging}}
""", encoding="utf-8")
    url = server.jdbc_url(database)  # MariaDB's as its users write it: Spark is given it as jdbc:mysql:
    url = url.replace("jdbc:mysql:", "jdbc:mariadb:") if server.kind == "mariadb" else url
    (repo / "datasources" / "shop-db.yaml").write_text(f"""\
kind: datasource
name: shop-db
type: {DATASOURCE_TYPES[server.kind]}
interfaces:
  readonly:
    endpoint: {url}
  write:
    endpoint: {url}
  credential:
    type: password-file
    userName: {server.user}
    passwordFile: /secrets/db.password
driver:
  clazz: {server.driver_class}
  jar: ["{server.driver_jar}"]
""", encoding="utf-8")
    cluster = f"""  - name: lake
    validity: {{start: {START}, end: 2027-01-01T00:00Z}}
"""
    (repo / "feeds" / "orders.yaml").write_text(f"""\
kind: feed
name: orders
frequency: hours(1)
availabilityFlag: _SUCCESS
columns:
  - {{name: id, type: bigint}}
  - {{name: customer, type: string}}
  - {{name: amount, type: "decimal(10,2)"}}
clusters:
{cluster}    import:
      source:
        name: shop-db
        tableName: orders
        extract: {{type: incremental, mergepolicy: append}}
      arguments: {{check-column: id, split-by: id, num-mappers: "2"{import_arguments}}}
locations:
  data: /data/orders/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}
""", encoding="utf-8")
    full = f"\n      arguments: {{{full_arguments}}}" if full_arguments else ""
    (repo / "feeds" / "orders-full.yaml").write_text(f"""\
kind: feed
name: orders-full
frequency: hours(1)
clusters:
{cluster}    import:
      source:
        name: shop-db
        tableName: orders
        extract: {{type: full, mergepolicy: snapshot}}{full}
locations:
  data: /data/orders-full/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}
""", encoding="utf-8")
    key = f"\n      arguments: {{update-key: \"{update_key}\"}}" if update_key else ""
    (repo / "feeds" / "totals.yaml").write_text(f"""\
kind: feed
name: totals
frequency: days(1)
availabilityFlag: _SUCCESS
clusters:
{cluster}    export:
      target:
        name: shop-db
        tableName: daily_totals
        load: {{type: {export_load}}}{key}
locations:
  data: /data/totals/${{YEAR}}/${{MONTH}}/${{DAY}}
""", encoding="utf-8")
    return TransferRepo(repo, root, server, database)
