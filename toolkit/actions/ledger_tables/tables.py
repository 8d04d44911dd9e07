"""The ledger as tables: external Spark JSON tables (explicit columns, no inference) over a cluster's ledger
records, and views that tell apart the records that share a file name, so that "which runs consumed the events
of clicks between A and B" is one SQL query (docs/ledger.md, "The ledger as tables").

A table's files are chosen by folder and file name only (`pathGlobFilter` matches the name; a glob in the
location fails while it matches nothing, as in a young ledger), and two pairs of records share a name: an
instance's and a batch's `attempt-NNN.json` under `processes/`, a plan's and a commit's `<seq>.json` under
`consumers/`. Each pair is one table (`attempt_records`, `queue_records`) with the union of their fields, and the
views `attempts`, `batch_attempts`, `plans` and `commits` keep the rows of one kind by a field only that kind
has (`seq`, `created`, `committed`). Dataset events are in two kinds of file, an event's own and a retention
run's batch of evictions (core/ledger/evictions.py): the view `events` is both, a row per event.

Every object carries the table property `feed-toolkit.ledger-table` (its name: ours) and
`feed-toolkit.ledger-definition` (a digest of its statement). Registering again refreshes ours when the digest
is the same, replaces them when it changed (an external table: dropping it leaves the records), and refuses an
object of the same name that is not ours, before changing anything."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass

from toolkit.core.entities.model import Cluster
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.catalog_records import TableType
from toolkit.core.storage.hive_sql import property_list, quote_identifier, quote_string
from toolkit.errors import UsageError

DATABASE_PROPERTY = "ledger.database"
DEFAULT_DATABASE = "feed_toolkit_ledger"
OWNER = "feed-toolkit.ledger-table"
DEFINITION = "feed-toolkit.ledger-definition"

_FINGERPRINT = "struct<digest:string,files:bigint,bytes:bigint>"
_OUTPUTS = ("array<struct<name:string,feed:string,time:string,path:string,files:bigint,bytes:bigint,"
            "replaced:boolean,`table`:string,`partition`:string>>")
_INSTANCE_INPUTS = (f"array<struct<name:string,feed:string,optional:boolean,instances:array<struct<time:string,"
                    f"location:string,available:boolean,fingerprint:{_FINGERPRINT}>>>>")
_BATCH_INPUTS = ("array<struct<name:string,feed:string,instances:array<struct<time:string,event_id:string,"
                 "location:string>>>>")
_ANY_INPUTS = (f"array<struct<name:string,feed:string,optional:boolean,instances:array<struct<time:string,"
               f"location:string,available:boolean,event_id:string,fingerprint:{_FINGERPRINT}>>>>")
_PLAN_EVENTS = "array<struct<event_id:string,feed:string,time:string,kind:string>>"
_COUNTERS = "map<string,double>"
_EVENT_COLUMNS = (
    ("format_version", "int"), ("event_id", "string"), ("feed", "string"), ("cluster", "string"), ("time", "string"),
    ("kind", "string"), ("producer", "string"), ("run_id", "string"), ("location", "string"),
    ("fingerprint", _FINGERPRINT), ("published", "string"))

Columns = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class FileTable:
    """An external JSON table over the files named `files` anywhere under `<ledger>/<folder>`."""

    name: str
    folder: str
    files: str
    columns: Columns
    comment: str


@dataclass(frozen=True)
class RecordView:
    """The rows of `base` that are records of one kind: `where` tests a field only that kind has."""

    name: str
    base: str
    columns: tuple[str, ...]
    where: str
    comment: str

    def select(self, database: str) -> str:
        return (f"SELECT {', '.join(quote_identifier(c) for c in self.columns)} "
                f"FROM {_qualified(database, self.base)} WHERE {self.where}")


@dataclass(frozen=True)
class EventsView:
    """Every dataset event, a row each: the event files, and each instance of the batches of evictions."""

    name: str
    comment: str

    def select(self, database: str) -> str:
        own = ", ".join(quote_identifier(name) for name, _ in _EVENT_COLUMNS)
        batched = (f"b.format_version, i.event_id, b.feed, b.cluster, i.time, 'evicted', b.producer, b.run_id, "
                   f"i.location, CAST(NULL AS {_FINGERPRINT}), b.published")
        return (f"SELECT {own} FROM {_qualified(database, 'event_files')} UNION ALL SELECT {batched} FROM "
                f"{_qualified(database, 'eviction_batches')} b LATERAL VIEW explode(b.instances) x AS i")


TABLES = (
    FileTable("instances", "processes", "instance.json", (
        ("format_version", "int"), ("process", "string"), ("cluster", "string"), ("time", "string"),
        ("status", "string"), ("attempts", "int"), ("run_id", "string"), ("updated", "string"),
        ("started", "string"), ("ended", "string"), ("error", "string"), ("missing", "array<string>"),
        ("inputs", _INSTANCE_INPUTS), ("outputs", _OUTPUTS), ("succeeded", "string")),
        "process instances: processes/<process>/<time>/instance.json"),
    FileTable("attempt_records", "processes", "attempt-*.json", (
        ("format_version", "int"), ("process", "string"), ("cluster", "string"), ("time", "string"),
        ("seq", "bigint"), ("attempt", "int"), ("run_id", "string"), ("kind", "string"), ("status", "string"),
        ("started", "string"), ("ended", "string"), ("error", "string"), ("events", "array<string>"),
        ("inputs", _ANY_INPUTS), ("outputs", _OUTPUTS), ("counters", _COUNTERS)),
        "every attempt-NNN.json under processes/: instance attempts (time) and batch attempts (seq)"),
    FileTable("batches", "processes", "batch.json", (
        ("format_version", "int"), ("process", "string"), ("cluster", "string"), ("seq", "bigint"),
        ("attempt", "int"), ("run_id", "string"), ("status", "string"), ("started", "string"), ("ended", "string"),
        ("error", "string"), ("events", "array<string>"), ("inputs", _BATCH_INPUTS), ("outputs", _OUTPUTS),
        ("counters", _COUNTERS)),
        "batch consumers' batches: processes/<process>/batches/<seq>/batch.json"),
    FileTable("event_files", "events", "*.json", _EVENT_COLUMNS,
              "dataset events with a file of their own: events/<feed>/<time>/<event id>.json"),
    FileTable("eviction_batches", "evictions", "*.json", (
        ("format_version", "int"), ("batch_id", "string"), ("feed", "string"), ("cluster", "string"),
        ("producer", "string"), ("run_id", "string"), ("published", "string"),
        ("instances", "array<struct<time:string,location:string,event_id:string>>")),
        "retention runs' evicted events, a file per run and feed: evictions/<feed>/<batch id>~<first>~<last>.json"),
    FileTable("queue_records", "consumers", "[0-9]*.json", (
        ("format_version", "int"), ("process", "string"), ("seq", "bigint"), ("run_id", "string"),
        ("created", "string"), ("events", _PLAN_EVENTS), ("committed", "string")),
        "consumer queues' plans (created) and commits (committed): consumers/<process>/{plans,commits}/<seq>.json"),
)

VIEWS: tuple[RecordView | EventsView, ...] = (
    EventsView("events", "every dataset event: the event files, and a row per instance of the eviction batches"),
    RecordView("attempts", "attempt_records",
               ("format_version", "process", "cluster", "time", "attempt", "run_id", "kind", "status", "started",
                "ended", "error", "inputs", "outputs", "counters"),
               "seq IS NULL", "process instances' attempts: processes/<process>/<time>/attempt-NNN.json"),
    RecordView("batch_attempts", "attempt_records",
               ("format_version", "process", "cluster", "seq", "attempt", "run_id", "status", "started", "ended",
                "error", "events", "inputs", "outputs", "counters"),
               "seq IS NOT NULL", "batches' attempts: processes/<process>/batches/<seq>/attempt-NNN.json"),
    RecordView("plans", "queue_records", ("format_version", "process", "seq", "run_id", "created", "events"),
               "created IS NOT NULL", "consumer queues' plans: consumers/<process>/plans/<seq>.json"),
    RecordView("commits", "queue_records", ("format_version", "process", "seq", "run_id", "committed"),
               "committed IS NOT NULL", "consumer queues' commits: consumers/<process>/commits/<seq>.json"),
)

_DATABASE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def ledger_database(cluster: Cluster) -> str:
    """The database of the cluster's ledger tables: its property `ledger.database`, else feed_toolkit_ledger."""
    name = cluster.properties.get(DATABASE_PROPERTY, DEFAULT_DATABASE)
    if not _DATABASE_NAME.match(name):
        raise UsageError(f"The property {DATABASE_PROPERTY} of cluster '{cluster.name}' is {name!r}, which is not a "
                         "database name: use letters, digits and '_'.")
    return name


@dataclass(frozen=True)
class Statement:
    """One object's DDL; `digest` (of the statement without its properties) is its definition."""

    name: str
    is_view: bool
    sql: str
    digest: str


def _qualified(database: str, name: str) -> str:
    return f"{quote_identifier(database)}.{quote_identifier(name)}"


def _marked(name: str, is_view: bool, head: str, tail: str) -> Statement:
    """`head TBLPROPERTIES (ours) tail`: any change of columns, place or filter changes the digest."""
    digest = hashlib.sha256(f"{head} {tail}".encode()).hexdigest()[:16]
    marks = property_list({OWNER: name, DEFINITION: digest})
    return Statement(name, is_view, f"{head} TBLPROPERTIES ({marks}){tail}", digest)


def statements(database: str, ledger_root: str) -> list[Statement]:
    """The DDL of every table and view, in the order they are made (tables first)."""
    made = []
    for table in TABLES:
        columns = ", ".join(f"{quote_identifier(name)} {kind}" for name, kind in table.columns)
        options = property_list({"multiLine": "true", "recursiveFileLookup": "true", "pathGlobFilter": table.files})
        made.append(_marked(table.name, False,
                            f"CREATE TABLE {_qualified(database, table.name)} ({columns}) USING json OPTIONS "
                            f"({options}) LOCATION {quote_string(f'{ledger_root}/{table.folder}')} "
                            f"COMMENT {quote_string(table.comment)}", ""))
    for view in VIEWS:
        made.append(_marked(view.name, True,
                            f"CREATE VIEW {_qualified(database, view.name)} COMMENT {quote_string(view.comment)}",
                            f" AS {view.select(database)}"))
    return made


def register(catalog: Catalog, run_ddl: Callable[[str, str], None], database: str,
             ledger_root: str) -> dict[str, str]:
    """Create or refresh every table and view of the ledger in `database`; what became of each: `created`,
    `refreshed` (the same definition) or `replaced` (an older one). `run_ddl(sql, subject)` runs a statement in
    the session of the cluster's metastore. UsageError (2), before anything changes, when an object of one of
    these names is not ours."""
    wanted = statements(database, ledger_root)
    existing: dict[str, str | None] = {}
    existing_views: set[str] = set()
    if catalog.database_exists(database):
        for each in wanted:
            if catalog.table_exists(database, each.name):
                found = catalog.describe_table(database, each.name)
                if found.properties.get(OWNER) != each.name:
                    kind = "view" if found.table_type is TableType.VIEW else "table"
                    raise UsageError(
                        f"The {kind} {database}.{each.name} exists and is not a ledger table of feed-toolkit (no "
                        f"table property {OWNER}): it is left as it is; rename it, or set the cluster property "
                        f"{DATABASE_PROPERTY} to another database.")
                existing[each.name] = found.properties.get(DEFINITION)
                if found.table_type is TableType.VIEW:
                    existing_views.add(each.name)
    else:
        catalog.create_database(database)
    done = {}
    for each in wanted:
        name = _qualified(database, each.name)
        if each.name in existing and existing[each.name] == each.digest:
            if not each.is_view:
                run_ddl(f"REFRESH TABLE {name}", f"refresh the table {database}.{each.name}")
            done[each.name] = "refreshed"
            continue
        if each.name in existing_views:
            run_ddl(f"DROP VIEW {name}", f"drop the view {database}.{each.name}")
        elif each.name in existing:  # ours, of an older definition: external, so dropping it leaves the records
            catalog.drop_table(database, each.name)
        run_ddl(each.sql, f"create the {'view' if each.is_view else 'table'} {database}.{each.name}")
        done[each.name] = "replaced" if each.name in existing else "created"
    return done
