"""The ledger tables' statements (toolkit/actions/ledger_tables/tables.py) without a JVM: the database from the cluster
property, one table per record file and one view per kind, the marks that make them ours, and
`entrypoints/ledger_tables.py --dry-run`, which prints them and starts no Spark. Their reading is tested on real
Spark in tests/integration/test_ledger_tables.py."""

from __future__ import annotations

from pathlib import Path

from tests.unit.ledger.ledger_support import load_clusters
from toolkit.actions.ledger_tables.tables import DEFAULT_DATABASE, ledger_database, statements

PROJECT = Path(__file__).resolve().parents[3]


def cluster_text(root: Path, properties: str) -> str:
    return (f'kind: cluster\nname: primary\ninterfaces:\n  write: {{endpoint: "file://{root}", version: "3.4"}}\n'
            f"locations: {{working: /w}}\n{properties}")


def test_each_record_kind_is_a_table_or_a_view_over_its_folder_and_file_names() -> None:
    made = {each.name: each for each in statements("ledger", "file:///r/w/ledger")}
    assert list(made) == ["instances", "attempt_records", "batches", "event_files", "eviction_batches",
                          "queue_records", "events", "attempts", "batch_attempts", "plans", "commits"]
    assert made["event_files"].sql.startswith("CREATE TABLE `ledger`.`event_files` (`format_version` int, "
                                              "`event_id` string,")
    assert ("USING json OPTIONS ('multiLine' = 'true', 'recursiveFileLookup' = 'true', 'pathGlobFilter' = "
            "'*.json') LOCATION 'file:///r/w/ledger/events'") in made["event_files"].sql
    assert "LOCATION 'file:///r/w/ledger/evictions'" in made["eviction_batches"].sql
    # every event, of its own file or of a batch of evictions, is a row of the view `events`
    assert made["events"].sql.endswith(
        "AS SELECT `format_version`, `event_id`, `feed`, `cluster`, `time`, `kind`, `producer`, `run_id`, "
        "`location`, `fingerprint`, `published` FROM `ledger`.`event_files` UNION ALL SELECT b.format_version, "
        "i.event_id, b.feed, b.cluster, i.time, 'evicted', b.producer, b.run_id, i.location, "
        "CAST(NULL AS struct<digest:string,files:bigint,bytes:bigint>), b.published FROM `ledger`.`eviction_batches` "
        "b LATERAL VIEW explode(b.instances) x AS i")
    assert "'pathGlobFilter' = '[0-9]*.json') LOCATION 'file:///r/w/ledger/consumers'" in made["queue_records"].sql
    assert made["plans"].sql.endswith("AS SELECT `format_version`, `process`, `seq`, `run_id`, `created`, `events` "
                                      "FROM `ledger`.`queue_records` WHERE created IS NOT NULL")
    assert f"'feed-toolkit.ledger-table' = 'plans', 'feed-toolkit.ledger-definition' = '{made['plans'].digest}'" in \
        made["plans"].sql
    moved = {each.name: each.digest for each in statements("ledger", "file:///elsewhere/ledger")}
    assert all(moved[name] != made[name].digest for name in ("event_files", "instances"))  # a new place: replaced


def test_the_database_is_the_cluster_property_or_the_default(tmp_path: Path) -> None:
    repo = load_clusters(tmp_path / "a", {"primary": cluster_text(tmp_path, "")})
    assert ledger_database(repo.cluster("primary")) == DEFAULT_DATABASE == "feed_toolkit_ledger"
    repo = load_clusters(tmp_path / "b", {"primary": cluster_text(tmp_path, "properties: {ledger.database: ops}")})
    assert ledger_database(repo.cluster("primary")) == "ops"


