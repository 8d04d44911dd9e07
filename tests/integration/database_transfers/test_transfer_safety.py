"""The promises of the database import and export (README, "Data safety"), each with a real kill, a real race or a
real leak search, on a real PostgreSQL:

- an import killed with SIGKILL between its read and its publication, between its publication and its high-water
  mark, and between the mark and its dataset event, then run again: every row of the table is in the feed's
  instances exactly once;
- an export killed inside its transaction and right after it, then run again: the target table holds the instance's
  rows once, never half of them;
- two imports of one feed at once: one imports, the other is told which run holds the lease (exit 5);
- a password (given as text, the worst case) is in no status line, stderr, ledger record, lineage event or dataset
  event of a real spark-submit import and export; an unreadable password file is one sentence and exit 2.

The killed runs are separate processes running the real action; the harness there kills itself at the chosen call
(tests/kill_points.py), the code under test unchanged. A killed import runs on the test session's JVM
(tests/integration/attached_driver.py: its kill points are Python calls, with no work of the run in the JVM); a
killed export has a Spark JVM of its own, which exits with it: its JDBC connection, open in a transaction at the
first point, must go with the driver, as it does when a driver dies."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import pytest
from chispa import assert_df_equality
from pyspark.sql import SparkSession

from tests.integration.attached_driver import ATTACHED_SESSION, killed_on_the_sessions_jvm
from tests.integration.database_transfers.test_export import (
    INSTANCE,
    export_instance,
    publish_totals,
    target_rows,
    target_table,
)
from tests.integration.database_transfers.test_import import (
    _add_orders,
    _expected,
    _instance,
    _orders_table,
    import_instance,
)
from tests.integration.database_transfers.transfer_repo import TransferRepo, transfer_repo
from tests.integration.databases import DatabaseServer
from tests.integration.spark_submit import spark_submit
from tests.jvm_options import with_short_lived
from tests.lineage_receiver import lineage_receiver
from toolkit.errors import BlockedError, SkippedError

PROJECT = Path(__file__).resolve().parents[3]
LEASE = 2.0
T0 = datetime(2026, 1, 1, 0, tzinfo=timezone.utc)
T1 = datetime(2026, 1, 1, 1, tzinfo=timezone.utc)
CHILD = """
import sys, time
sys.path.insert(0, {project!r})
from tests.kill_points import dies_at
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.hadoop import HadoopFileSystem
from toolkit.core.storage.jdbc.credential_provider import alias_reader
from toolkit.services.datasource_access.endpoints import FOR_IMPORT, FOR_EXPORT, endpoint_for
from toolkit.services.runtime.run_context import RunContext
from toolkit.services.staged_outputs import file_outputs
from toolkit.core.ledger import store
from toolkit.core.storage.jdbc import connection
from toolkit.actions.database_import import runner as import_runner
from toolkit.actions.database_import.import_entry import import_policy
from toolkit.actions.database_export import runner as export_runner
from toolkit.actions.database_export.export_entry import export_policy
from datetime import datetime, timezone

point = {point!r}
if point == "between the read and the publication":
    dies_at(file_outputs, "publish", 1)
elif point == "between the publication and the mark":
    dies_at(import_runner._Import, "_advance", 1)
elif point == "between the mark and the event":
    dies_at(store.Ledger, "record_publication", 1)
elif point == "inside the transaction":
    dies_at(connection.DatabaseSession, "_in_transaction", {last_statement})
elif point == "after the transaction":
    dies_at(connection.DatabaseSession, "run_in_transaction", 1, after=True)
elif point == "slowly":
    real = file_outputs.publish
    def slow(*args, **kwargs):
        print("staged", flush=True)
        time.sleep(12)
        return real(*args, **kwargs)
    file_outputs.publish = slow
{session}
config = ConfigRepo.load({repo!r})
feed, cluster = config.feed({feed!r}), config.cluster("lake")
fs = HadoopFileSystem(spark)
context = RunContext(fs, run_id={run_id!r}, lease_seconds={lease})
t = datetime(2026, 1, 1, tzinfo=timezone.utc)
if {feed!r} == "totals":
    policy = export_policy(feed, cluster)
    datasource = config.datasource(policy.datasource)
    endpoint = endpoint_for(datasource, FOR_EXPORT, cluster, fs, alias_reader(spark))
    export_runner.run_export(spark, export_runner.ExportCall.of(config, feed, cluster, policy, datasource, t),
                             endpoint, context)
else:
    policy = import_policy(feed, cluster)
    datasource = config.datasource(policy.datasource)
    endpoint = endpoint_for(datasource, FOR_IMPORT, cluster, fs, alias_reader(spark))
    import_runner.run_import(spark, import_runner.ImportCall.of(config, feed, cluster, policy, datasource, t),
                             endpoint, context)
"""


OWN_SESSION = """
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate())
"""


def _script(repo: TransferRepo, feed: str, point: str, session: str, run_id: str = "killed",
            last_statement: int = 0) -> str:
    return CHILD.format(project=str(PROJECT), repo=str(repo.repo), feed=feed, point=point, run_id=run_id,
                        lease=LEASE, last_statement=last_statement, session=session)


def _child(repo: TransferRepo, feed: str, point: str, run_id: str = "killed",
           last_statement: int = 0) -> subprocess.Popen[bytes]:
    """The run on a Spark JVM of its own, started."""
    script = _script(repo, feed, point, OWN_SESSION, run_id, last_statement)
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            cwd=repo.repo.parent,
                            env=with_short_lived({"SPARK_LOCAL_IP": "127.0.0.1", "PATH": "/usr/bin:/bin"}))


def _killed(repo: TransferRepo, feed: str, point: str, last_statement: int = 0) -> None:
    child = _child(repo, feed, point, last_statement=last_statement)
    out, _ = child.communicate(timeout=240)
    assert child.returncode == -signal.SIGKILL, out.decode()[-3000:]
    time.sleep(LEASE + 0.5)  # its lease expires


def _killed_on_the_sessions_jvm(spark: SparkSession, repo: TransferRepo, feed: str, point: str) -> None:
    killed_on_the_sessions_jvm(spark, _script(repo, feed, point, ATTACHED_SESSION), cwd=repo.repo.parent, timeout=240)
    time.sleep(LEASE + 0.5)  # its lease expires


@pytest.mark.parametrize("point", ["between the read and the publication", "between the publication and the mark",
                                   "between the mark and the event"])
def test_an_import_killed_at_each_step_then_run_again_imports_each_row_once(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path, point: str) -> None:
    name = "killed_" + point.replace(" ", "_")[:40]
    postgres_server.create_database(name)
    repo = transfer_repo(tmp_path, postgres_server, name)
    _orders_table(repo, 1, 100)

    _killed_on_the_sessions_jvm(spark, repo, "orders", point)
    _add_orders(repo, 101, 120)  # rows the killed run did not see
    try:
        import_instance(spark, repo, "orders", T0, run_id="rerun")
    except SkippedError:  # the killed run had published it: the rerun finished its bookkeeping
        assert point != "between the read and the publication"
    import_instance(spark, repo, "orders", T1, run_id="next")

    both = _instance(spark, repo, "orders", T0).unionByName(_instance(spark, repo, "orders", T1))
    assert_df_equality(both, _expected(spark, 1, 120), ignore_row_order=True, ignore_nullable=True,
                       ignore_metadata=True)  # every row once: none lost, none twice
    events = sorted((repo.ledger() / "events" / "orders").glob("*/*.json"))
    assert [json.loads(e.read_text())["time"] for e in events] == ["2026-01-01T00:00Z", "2026-01-01T01:00Z"]
    assert not (repo.ledger() / "imports" / "orders" / "pending.json").exists()
    first = json.loads((repo.ledger() / "imports" / "orders" / "20260101T0000Z.json").read_text())
    assert (first["status"], first["rows"]) == (
        ("SUCCEEDED", 120) if point == "between the read and the publication" else ("SUCCEEDED", 100))
    assert not [p for p in (repo.data("orders") / "2026/01/01").iterdir() if p.name.startswith(".")]  # no staging


@pytest.mark.parametrize("point", ["inside the transaction", "after the transaction"])
@pytest.mark.jvm
def test_an_export_killed_inside_or_after_its_transaction_then_run_again_loads_the_rows_once(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path, point: str) -> None:
    name = "export_" + point.replace(" ", "_")
    postgres_server.create_database(name)
    repo = transfer_repo(tmp_path, postgres_server, name, export_load="allowinsert")  # no key: a repeat shows
    target_table(repo, [("2025-12-31", "eu", "1.00")])
    publish_totals(spark, repo, INSTANCE)

    _killed(repo, "totals", point, last_statement=2)  # after the rows' insert, before the export's own row
    after_kill = target_rows(repo)
    rerun = export_instance(spark, repo, run_id="rerun") if point == "inside the transaction" else None
    if rerun is None:
        with pytest.raises(SkippedError, match="had loaded it \\(2 rows\\) before it was killed"):
            export_instance(spark, repo, run_id="rerun")

    before = [("2025-12-31", "eu", "1.00")]
    assert after_kill == (before if point == "inside the transaction" else before + INSTANCE)  # old or new
    assert target_rows(repo) == before + INSTANCE  # the rows once
    record = json.loads((repo.ledger() / "exports" / "totals" / "20260101T0000Z.json").read_text())
    assert (record["status"], record["run_id"]) == ("SUCCEEDED", "rerun" if rerun else "killed")
    assert "feed_toolkit_stage_" not in repo.sql("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")


@pytest.mark.jvm
def test_two_imports_of_one_feed_at_once_one_imports_the_other_is_told_who_holds_it(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path) -> None:
    postgres_server.create_database("race")
    repo = transfer_repo(tmp_path, postgres_server, "race")
    _orders_table(repo, 1, 30)
    slow = _child(repo, "orders", "slowly", run_id="slow")
    assert slow.stdout is not None
    while b"staged" not in slow.stdout.readline():  # it holds the lease and has staged its rows
        assert slow.poll() is None, "the slow import ended before it staged"

    with pytest.raises(BlockedError, match=r"The import of feed 'orders' on cluster 'lake' is being run by run "
                                           r"slow on .* \(its lease ends .*\): call again later."):
        import_instance(spark, repo, "orders", T1, run_id="second")
    out, _ = slow.communicate(timeout=120)
    assert slow.returncode == 0, out.decode()[-2000:]
    assert_df_equality(_instance(spark, repo, "orders", T0), _expected(spark, 1, 30), ignore_row_order=True,
                       ignore_nullable=True, ignore_metadata=True)
    assert not (repo.data("orders") / "2026/01/01/01").exists()


SECRET = "Pa55-w0rd-never-printed"


@pytest.mark.jvm
def test_no_password_in_any_output_record_or_event_of_a_real_import_and_export(
        postgres_server: DatabaseServer, tmp_path: Path) -> None:
    postgres_server.create_database("secrets")
    repo = transfer_repo(tmp_path, postgres_server, "secrets")
    admin = postgres_server.execute  # as the server's administrator, through its socket
    admin(f"CREATE USER leaky PASSWORD '{SECRET}'", database="secrets")
    admin("GRANT ALL ON SCHEMA public TO leaky", database="secrets")
    _orders_table(repo, 1, 5)
    admin("GRANT ALL ON orders TO leaky", database="secrets")
    source = repo.repo / "datasources" / "shop-db.yaml"
    source.write_text(source.read_text().replace(
        "    type: password-file\n    userName: toolkit\n    passwordFile: /secrets/db.password\n",
        f"    type: password-text\n    userName: leaky\n    passwordText: {SECRET}\n"))
    outputs = []
    with lineage_receiver() as receiver:
        env = {"OPENLINEAGE_URL": receiver.url.rsplit("/api/", 1)[0]}
        imported = spark_submit("import", "--repo", str(repo.repo), "--feed", "orders", "--cluster", "lake",
                                "--time", "2026-01-01T00:00Z", cwd=tmp_path, env=env)
        outputs.append(imported)
        (repo.data("totals") / "2026/01/01").mkdir(parents=True)
        subprocess.run(["cp", "-r", *map(str, (repo.data("orders") / "2026/01/01/00").glob("part-*")),
                        str(repo.data("totals") / "2026/01/01")], check=True)
        (repo.data("totals") / "2026/01/01" / "_SUCCESS").touch()
        repo.sql("CREATE TABLE daily_totals (id bigint, customer text, amount numeric(10,2))")
        admin("GRANT ALL ON daily_totals TO leaky", database="secrets")
        exported = spark_submit("export", "--repo", str(repo.repo), "--feed", "totals", "--cluster", "lake",
                                "--time", "2026-01-01T00:00Z", cwd=tmp_path, env=env)
        outputs.append(exported)
        wrong = tmp_path / "wrong"
        source.write_text(source.read_text().replace(SECRET, SECRET + "-wrong"))
        refused = spark_submit("import", "--repo", str(repo.repo), "--feed", "orders-full", "--cluster", "lake",
                               "--time", "2026-01-01T00:00Z", cwd=tmp_path, env=env)
        outputs.append(refused)
        events = json.dumps(receiver.events)
    assert (imported.returncode, exported.returncode, refused.returncode) == (0, 0, 1), [
        o.stderr[-2000:] for o in outputs]
    assert json.loads(imported.stdout.splitlines()[-1])["rows"] == 5
    assert json.loads(exported.stdout.splitlines()[-1])["rows"] == 5
    assert "password authentication failed for user \"leaky\"" in refused.stderr
    assert events and '"postgres://127.0.0.1:' in events
    written = [path for path in repo.root.rglob("*") if path.is_file()]  # the ledger, its lineage, the data
    assert any("lineage" in path.parts for path in written) and any("imports" in path.parts for path in written)
    for text in [o.stdout for o in outputs] + [o.stderr for o in outputs] + [events]:
        assert SECRET not in text
    for path in written:
        assert SECRET.encode() not in path.read_bytes(), path
    assert not wrong.exists()


@pytest.mark.jvm
def test_a_password_inline_in_the_url_is_in_no_sentence_status_line_or_record_of_a_failing_import(
        postgres_server: DatabaseServer, tmp_path: Path) -> None:
    postgres_server.create_database("inline")
    repo = transfer_repo(tmp_path, postgres_server, "inline")  # no table `orders`: the import fails, naming the URL
    source = repo.repo / "datasources" / "shop-db.yaml"
    url = postgres_server.jdbc_url("inline")
    source.write_text(source.read_text().replace(f"endpoint: {url}\n",
                                                 f"endpoint: {url}?sslpassword={SECRET}&ApplicationName=toolkit\n"))

    done = spark_submit("import", "--repo", str(repo.repo), "--feed", "orders", "--cluster", "lake", "--time",
                        "2026-01-01T00:00Z", cwd=tmp_path)

    assert done.returncode == 2, done.stderr[-2000:]
    status = json.loads(done.stdout.splitlines()[-1])
    assert f"the table does not exist in {url}?sslpassword=***&ApplicationName=toolkit" in status["error"]
    assert SECRET not in done.stdout + done.stderr
    for path in (path for path in repo.root.rglob("*") if path.is_file()):
        assert SECRET.encode() not in path.read_bytes(), path


def test_a_password_file_that_cannot_be_read_is_one_sentence_and_exit_2(
        run_entrypoint: Callable[..., subprocess.CompletedProcess[str]], postgres_server: DatabaseServer,
        tmp_path: Path) -> None:
    """In process (tests/integration/in_process.py): the refusal comes before anything reaches the JVM."""
    postgres_server.create_database("nofile")
    repo = transfer_repo(tmp_path, postgres_server, "nofile")
    (repo.root / "secrets" / "db.password").unlink()

    done = run_entrypoint("import", "--repo", str(repo.repo), "--feed", "orders", "--cluster", "lake", "--time",
                          "2026-01-01T00:00Z", cwd=tmp_path)

    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.strip().splitlines()[-1] == (
        "import: The password file /secrets/db.password (interfaces.credential.passwordFile of datasource 'shop-db') "
        "cannot be read (it cannot be read): create it, readable by the user the action runs as, holding only the "
        "password.")
    assert json.loads(done.stdout.splitlines()[-1])["status"] == "INVALID"
