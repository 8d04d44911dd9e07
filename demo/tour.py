"""`make demo`: every capability of the toolkit on the template config repo, each a short titled block of what it
did and its result, then a summary table. The Spark actions run in one long-lived driver (demo/driver.py) instead
of one JVM each; the same calls, one spark-submit each, are what `toolkit schedule` generates for production, and
`make demo-full` is the long tour with one spark-submit per call.

    python demo/tour.py [--master local[2]]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from demo.client import Answer, Driver  # noqa: E402

PROJECT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
REPO = "config_repo_template"
DEMO = Path("/tmp/feed-toolkit-demo")
PRIMARY = DEMO / "primary"
SCRIPTS = PROJECT / REPO / "demo"
OUT = PROJECT / "demo-output"
SCHEDULE_PATHS = ("--repo-path", "/srv/conf", "--toolkit", "/opt/feed-toolkit/bin/toolkit",
                  "--spark-submit", "/opt/spark/bin/spark-submit", "--entrypoints", "/opt/feed-toolkit/entrypoints")


class DemoError(Exception):
    """A step did not end as the demo expects: the tour stops with its output."""


@dataclass
class Tour:
    driver: Driver
    shown: list[tuple[str, str, str]] = field(default_factory=list)
    began: float = field(default_factory=time.monotonic)

    def block(self, title: str) -> None:
        print(f"\n== {title}", flush=True)

    def say(self, text: str) -> None:
        print(f"   {text}", flush=True)

    def lines(self, text: str, limit: int = 6, width: int = 150) -> None:
        rows = [row for row in text.splitlines() if row.strip()]
        for row in rows[:limit]:
            self.say(row if len(row) <= width else row[:width - 3] + "...")
        if len(rows) > limit:
            self.say(f"... ({len(rows) - limit} more lines)")

    def done(self, capability: str, what: str, where: str) -> None:
        self.shown.append((capability, what, where))

    def toolkit(self, *args: str, codes: Sequence[int] = (0,), both: bool = False) -> str:
        """`toolkit ARGS` (no JVM); its stdout (and stderr after it with `both`), or DemoError when it exits
        otherwise than `codes`."""
        result = self.run([str(BIN / "toolkit"), *args], codes)
        return result.stdout + result.stderr if both else result.stdout

    def python(self, script: str, *args: str) -> str:
        return self.run([sys.executable, str(SCRIPTS / script), *args], (0,)).stdout

    def run(self, command: list[str], codes: Sequence[int],
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(command, capture_output=True, text=True, cwd=PROJECT, timeout=600,
                                env={**os.environ, **(env or {})})
        if result.returncode not in codes:
            raise DemoError(f"{' '.join(command[:4])} ... exited {result.returncode}:\n{result.stdout}{result.stderr}")
        return result

    def spark(self, *argv: str, codes: Sequence[int] = (0,), env: dict[str, str] | None = None) -> Answer:
        """`spark-submit entrypoints/ARGV[0].py ARGV[1:]`, run in the demo's driver."""
        answer = self.driver.call(*argv, env=env)
        if answer.code not in codes:
            raise DemoError(f"{argv[0]} exited {answer.code}:\n{answer.stdout}{answer.stderr}")
        return answer

    def summary(self) -> None:
        print(f"\n== What the demo showed, in {time.monotonic() - self.began:.0f} s", flush=True)
        widths = [max(len(row[i]) for row in self.shown) for i in range(2)]
        print(f"   {'capability':<{widths[0]}}  {'what was shown':<{widths[1]}}  where to look")
        for capability, what, where in self.shown:
            print(f"   {capability:<{widths[0]}}  {what:<{widths[1]}}  {where}")


def status_fields(answer: Answer, *names: str) -> str:
    status = answer.status
    return ", ".join(f"{name} {status.get(name)}" for name in names)


def lint_and_plan(tour: Tour) -> None:
    tour.block("Lint: the template config repo, as the pre-commit hook and CI check it")
    tour.lines(f"toolkit lint {REPO}: " + tour.toolkit("lint", REPO, both=True), 1)
    rules = tour.toolkit("lint", "--list-rules").splitlines()
    tour.say(f"{len([line for line in rules if line[:2].isalpha() and line[2:5].isdigit()])} rules "
             "(toolkit lint --list-rules; docs/rules.md)")
    tour.done("lint", "the template repo clean, the rules", "toolkit lint, docs/rules.md")
    tour.block("Instances: what the daily rollup of 2026-11-21 reads and writes")
    tour.lines(tour.toolkit("instances", "--repo", REPO, "--process", "daily-clicks-rollup",
                            "--time", "2026-11-21T00:00Z", "--format", "text"), 4)
    month = tour.toolkit("el", "eval", "lastMonth(0,0,0)", "--time", "2026-11-21T10:00Z",
                         "--timezone", "America/Los_Angeles").strip()
    tour.say(f"the time engine: lastMonth(0,0,0) at 2026-11-21T10:00Z in America/Los_Angeles is {month}")
    tour.done("instances and the time engine", "input windows, output paths, an EL function",
              "toolkit instances, toolkit el")


def falcon(tour: Tour) -> None:
    tour.block("Migrating from Falcon: the definitions of Falcon's documentation converted, then linted")
    converted = OUT / "converted"
    shutil.rmtree(converted, ignore_errors=True)
    specs = sorted(str(path) for path in (PROJECT / "tests/unit/convert/falcon_published/spec").glob("*.xml"))
    tour.toolkit("convert-falcon", *specs, "--out", str(converted))
    written = sorted(path.name for path in converted.rglob("*.yaml"))
    tour.say(f"{len(specs)} Falcon XML files -> {len(written)} YAML entities in demo-output/converted")
    said = tour.toolkit("lint", str(converted), both=True).splitlines()
    tour.say(f"toolkit lint: {said[-1]} The first:")
    tour.lines(said[0], 1)
    tour.done("Falcon migration", f"{len(specs)} definitions converted, no lint error", "toolkit convert-falcon")


def falcon_oozie(tour: Tour) -> None:
    tour.block("Falcon's engine oozie: a Falcon feed and process (an Oozie workflow) converted, then run on the "
               "cluster's Oozie, a stand-in on loopback (tests/oozie_server.py: Oozie needs Hadoop)")
    from tests.oozie_server import stand_in_oozie

    repo, root = DEMO / "oozie-repo", DEMO / "oozie-primary"
    with stand_in_oozie() as oozie:
        tour.python("oozie_repo.py", "--to", str(repo), "--root", str(root), "--oozie", oozie.url)
        falcon_xml = sorted(str(path) for path in (SCRIPTS / "falcon-oozie").glob("*.xml"))
        tour.toolkit("convert-falcon", *falcon_xml, "--out", str(repo))
        tour.lines(f"convert-falcon {', '.join(Path(path).name for path in falcon_xml)}, then toolkit lint: "
                   + tour.toolkit("lint", str(repo), both=True), 1)
        tour.python("generate_clicks.py", "--root", str(root), "--start", "2026-01-01T00:00Z", "--hours", "1")
        call = ("process", "--repo", str(repo), "--process", "clicks-count-oozie", "--cluster", "primary",
                "--time", "2026-01-01T00:00Z")
        run = tour.spark(*call)
        [job] = oozie.jobs.values()
        tour.say(f"clicks-count-oozie: {status_fields(run, 'status')}; Oozie job {job.id} ended {job.status}, "
                 f"submitted with nominalTime {job.conf['nominalTime']} and the output's staging path as "
                 f"${{counts}}")
        counts = root / "data/clicks-hourly-counts/2026/01/01/00/part-00000.json"
        tour.say(f"published {counts.relative_to(DEMO)}: {counts.read_text().strip()}")
        again = tour.spark(*call, codes=(4,))
        tour.say(f"the same call again: exit 4, {again.status['status']}; Oozie jobs submitted: {len(oozie.jobs)}")
    tour.done("Falcon engine oozie", "a Falcon process converted, run on Oozie (a stand-in)", "docs/oozie-engines.md")


def retention(tour: Tour) -> None:
    tour.block("Retention: 4 days of clicks on 'primary' (kept 90 days), as of 2026-03-31T10:00Z")
    shutil.rmtree(PRIMARY / "data/clicks", ignore_errors=True)
    shutil.rmtree(PRIMARY / "feed-toolkit/working/retention", ignore_errors=True)
    tour.python("generate_clicks.py", "--root", str(PRIMARY), "--start", "2025-12-29T00:00Z", "--hours", "96")
    call = ("retention", "--repo", REPO, "--feed", "clicks", "--cluster", "primary", "--time", "2026-03-31T10:00Z")
    dry = tour.spark(*call, "--dry-run")
    would = [line for line in dry.stdout.splitlines() if line.startswith("would evict")]
    tour.say(f"--dry-run: would evict {len(would)} instances, the first: {would[0]}")
    began = time.monotonic()
    done = json.loads(tour.toolkit("retain", *call[1:]).splitlines()[-1])  # a file feed's: no JVM
    evicted = ", ".join(f"{name} {done[name]}" for name in ("status", "instances_evicted", "bytes_freed", "cut_off"))
    tour.say(f"toolkit retain (no JVM, {time.monotonic() - began:.1f} s): {evicted}")
    left = sorted(path.name for path in (PRIMARY / "data/clicks/2025/12/31").iterdir())
    tour.say(f"left of 2025-12-31: hours {' '.join(left)} (the cut-off is 10:00)")
    changed = committed_change(tour)
    plan = ("plan", "--repo", str(changed), "--base", "HEAD~1", "--head", "HEAD", "--cluster", "primary", "--now",
            "2026-03-31T10:00Z")
    tour.say("the change committed: clicks kept 88 days, not 90; toolkit plan of it against the commit before "
             "(exit 1: it loses data):")
    tour.lines(tour.toolkit(*plan, codes=(1,)), limit=3)
    named = {item["path"] for change in json.loads(tour.toolkit(*plan, "--format", "json", codes=(1,)))["changes"]
             if change["destructive"] for item in change["instances"]}
    tour.toolkit("retain", "--repo", str(changed), *call[3:])
    report = json.loads(sorted((PRIMARY / "feed-toolkit/working/retention/clicks").glob("*.json"))[-1].read_text())
    gone = {item["path"] for item in report["evicted"]}
    if gone != named:
        raise DemoError(f"retention of the change evicted {len(gone)} instances, the plan named {len(named)}")
    batch = json.loads(sorted((PRIMARY / "feed-toolkit/working/ledger").glob("evictions/clicks/**/*.json"),
                              key=lambda path: path.stat().st_mtime)[-1].read_text())
    tour.say(f"toolkit retain of the committed change: evicted exactly the {len(gone)} instances the plan named; "
             f"its eviction batch records config commit {batch['definition']['commit'][:12]}")
    first = min(item["time"] for item in report["evicted"])  # put back for the blocks that follow (replication)
    tour.python("generate_clicks.py", "--root", str(PRIMARY), "--start", first, "--hours", str(len(gone)))
    tour.done("retention", f"{done['instances_evicted']} hours evicted without a JVM, a dry run first",
              "toolkit retain, entrypoints/retention.py, feed-toolkit/working/retention/")
    tour.done("toolkit plan", "what a change to retention deletes, before it is merged", "toolkit plan, docs/plan.md")


def committed_change(tour: Tour) -> Path:
    """The template in a git repository of its own, in two commits: as it is, then clicks kept 88 days instead
    of 90 (the change a pull request would bring)."""
    repo = DEMO / "conf-in-git"
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(PROJECT / REPO, repo)
    identity = {"GIT_AUTHOR_NAME": "demo", "GIT_AUTHOR_EMAIL": "demo@example.org", "GIT_COMMITTER_NAME": "demo",
                "GIT_COMMITTER_EMAIL": "demo@example.org", "GIT_CONFIG_GLOBAL": os.devnull}
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "the template"]):
        tour.run(["git", "-C", str(repo), *argv], (0,), env=identity)
    clicks = repo / "feeds/clicks.yaml"
    clicks.write_text(clicks.read_text().replace("limit: days(90)", "limit: days(88)", 1))
    tour.run(["git", "-C", str(repo), "commit", "-q", "-am", "keep clicks 88 days"], (0,), env=identity)
    return repo


def replication(tour: Tour) -> None:
    tour.block("Replication: clicks from primary to backup, 2026-01-01 00:00 to 05:00, then a rerun")
    shutil.rmtree(DEMO / "backup/replica/clicks", ignore_errors=True)
    shutil.rmtree(DEMO / "backup/feed-toolkit/working/replication", ignore_errors=True)
    call = ("replication", "--repo", REPO, "--feed", "clicks", "--source", "primary", "--target", "backup",
            "--time", "2026-01-01T05:00Z", "--from", "2026-01-01T00:00Z", "--to", "2026-01-01T05:00Z")
    first = tour.spark(*call)
    tour.say(f"copied: {status_fields(first, 'status', 'instances', 'files_copied', 'bytes_copied')}")
    again = tour.spark(*call)
    tour.say(f"the rerun: {status_fields(again, 'status', 'files_copied')} (every file there, unchanged)")
    waiting = tour.spark("replication", "--repo", REPO, "--feed", "clicks", "--target", "backup",
                         "--time", "2026-01-02T00:00Z", "--now", "2026-01-02T01:00Z", codes=(3,))
    tour.say(f"an instance never generated: exit 3, {waiting.stderr.strip().splitlines()[-1]}")
    tour.done("replication", "6 hours copied, a rerun copies nothing, a missing hour waits",
              "entrypoints/replication.py, docs/replication.md")


def data_safety(tour: Tour) -> None:
    tour.block("Data safety: lint refuses feeds sharing folders (RP009) and object-store clusters (CL006); "
               "retention archives")
    repo = str(DEMO / "safety-repo")
    tour.python("safety_repo.py", "--to", repo, "--mistakes")
    out = tour.toolkit("lint", repo, codes=(1,))
    tour.lines("\n".join(line for line in out.splitlines() if " RP009 " in line or " CL006 " in line), 2)
    tour.python("safety_repo.py", "--to", repo)
    shutil.rmtree(PRIMARY / "archive", ignore_errors=True)
    archived = tour.spark("retention", "--repo", repo, "--feed", "clicks", "--cluster", "primary",
                          "--time", "2026-04-01T00:00Z")
    kept = sorted(path.name for path in (PRIMARY / "archive/data/clicks/2025/12/31").iterdir())
    tour.say(f"action archive: {archived.status['instances_evicted']} instances copied to /archive, verified, "
             f"removed; /archive/data/clicks/2025/12/31 holds hours {kept[0]}..{kept[-1]}")
    listed = tour.toolkit("instances", "--repo", repo, "--feed", "clicks", "--cluster", "primary", "--from",
                          "2025-12-31T22:00Z", "--to", "2026-01-01T01:00Z", "--listing", "--format", "text")
    tour.lines(listed, 8, width=230)
    tour.done("data safety", "RP009, CL006, archive before delete, Falcon's instance listing (no JVM)",
              "README.md#data-safety, toolkit instances --listing")


def tables(tour: Tour) -> None:
    tour.block("Table feeds: web.visits in primary's metastore, kept 30 days, then replicated into backup's")
    shutil.rmtree(PRIMARY / "warehouse", ignore_errors=True)
    tour.spark(str(SCRIPTS / "load_visits.py"), "--repo", REPO, "--cluster", "primary", "--start", "2026-02-20",
               "--days", "45")
    call = ("retention", "--repo", REPO, "--feed", "visits", "--cluster", "primary", "--time", "2026-04-01T00:00Z")
    done = tour.spark(*call)
    tour.say(f"45 daily partitions, retention as of 2026-04-01: {status_fields(done, 'status', 'instances_evicted')}")
    copied = tour.spark("replication", "--repo", REPO, "--feed", "visits", "--target", "backup",
                        "--time", "2026-04-05T00:00Z", "--from", "2026-04-01T00:00Z", "--to", "2026-04-05T00:00Z")
    tour.say(f"replication of 2026-04-01..05 into backup's metastore: {status_fields(copied, 'status', 'instances')}")
    tour.done("table feeds", "partition retention, export/copy/import", "entrypoints/retention.py, hive_export.py")


def processes(tour: Tour) -> None:
    tour.block("Processes: the hourly clicks summary of 2026-01-01 (24 instances, one call), its quality gate, "
               "the daily rollup with OpenLineage")
    for folder in ("data/clicks-hourly-summary", "data/clicks-daily", "data/top-pages", "feed-toolkit/working/ledger"):
        shutil.rmtree(PRIMARY / folder, ignore_errors=True)
    tour.python("generate_clicks.py", "--root", str(PRIMARY), "--start", "2025-12-31T22:00Z", "--hours", "2")
    tour.spark(str(SCRIPTS / "create_tables.py"), "--repo", REPO, "--cluster", "primary")
    hourly = tour.spark("process", "--repo", REPO, "--process", "hourly-clicks-summary", "--cluster", "primary",
                        "--from", "2026-01-01T00:00Z", "--to", "2026-01-01T23:00Z")
    lines = [line for line in hourly.stdout.splitlines() if line.startswith("process: 2026")]
    tour.lines("\n".join(lines), 2)
    tour.say(f"{len(lines)} instances; each met quality/clicks-hourly-summary.json (Great Expectations) before "
             "it was published")
    events = OUT / "openlineage.jsonl"
    events.unlink(missing_ok=True)
    OUT.mkdir(exist_ok=True)
    lineage = {"OPENLINEAGE__TRANSPORT__TYPE": "file", "OPENLINEAGE__TRANSPORT__LOG_FILE_PATH": str(events),
               "OPENLINEAGE__TRANSPORT__APPEND": "true"}
    rollup = tour.spark("process", "--repo", REPO, "--process", "daily-clicks-rollup", "--cluster", "primary",
                        "--time", "2026-01-02T00:00Z", env=lineage)
    tour.say(f"daily rollup: {status_fields(rollup, 'status')}; its OpenLineage events:")
    tour.lines(tour.python("show_openlineage.py", str(events)), 3)
    top = tour.spark("process", "--repo", REPO, "--process", "top-pages", "--cluster", "primary",
                     "--time", "2026-01-02T00:00Z")
    pages = next((PRIMARY / "data/top-pages/2026/01/01").glob("part-*.json")).read_text().splitlines()
    tour.say(f"top-pages, a Falcon-style Spark application (engine spark, its own spark-submit): "
             f"{status_fields(top, 'status')}; the first of its {len(pages)} rows: {pages[0]}")
    tour.lines(tour.toolkit("status", "--repo", REPO, "--process", "daily-clicks-rollup", "--cluster", "primary",
                            "--from", "2026-01-02T00:00Z", "--to", "2026-01-02T00:00Z"), 3)
    missing = tour.spark("process", "--repo", REPO, "--process", "hourly-clicks-summary", "--cluster", "primary",
                         "--time", "2026-01-02T00:00Z", "--now", "2026-01-02T00:30Z", "--no-wait", codes=(3,))
    tour.say(f"an instance whose input is missing, --no-wait: exit 3, {missing.status['status']}")
    tour.done("processes", "24 hourly instances in one call, a rollup, a Spark application, waiting inputs",
              "entrypoints/process.py, toolkit status")
    tour.done("OpenLineage", "START/COMPLETE events of the rollup", "demo-output/openlineage.jsonl")


def databases(tour: Tour) -> None:
    tour.block("Database import and export: the shop's orders imported every hour from a PostgreSQL the demo starts "
               "(port 5433), an import killed at the worst moment, then the day's top pages exported into the database")
    from toolkit.devtools.local_database import DatabaseServer

    folder = DEMO / "shop-db"
    shutil.rmtree(folder, ignore_errors=True)
    server = DatabaseServer.start("postgres", folder, port=5433)
    try:
        server.create_database("shop")

        def sql(statement: str) -> str:  # as the server's administrator
            return server.execute(statement, database="shop")

        sql("CREATE TABLE orders (order_id bigint PRIMARY KEY, customer text, amount numeric(10,2), "
            "ordered_at timestamp)")
        sql("CREATE TABLE top_pages_latest (page text PRIMARY KEY, clicks bigint)")
        sql(f"GRANT ALL ON ALL TABLES IN SCHEMA public TO {server.user}")

        def orders(first: int, last: int) -> None:
            sql(f"INSERT INTO orders SELECT g, 'customer ' || (g % 97), (g % 500) + 0.99, "
                f"TIMESTAMP '2026-01-01 00:00' + g * INTERVAL '1 second' FROM generate_series({first}, {last}) g")

        (PRIMARY / "secrets").mkdir(parents=True, exist_ok=True)
        (PRIMARY / "secrets" / "shop-db.password").write_text(server.password)  # the datasource's passwordFile
        for kept in ("data/shop-orders", "feed-toolkit/working/ledger/imports", "feed-toolkit/working/ledger/exports"):
            shutil.rmtree(PRIMARY / kept, ignore_errors=True)
        orders(1, 1000)
        call = ("import", "--repo", REPO, "--feed", "shop-orders", "--cluster", "primary")
        first = tour.spark(*call, "--time", "2026-01-01T00:00Z")
        tour.say(f"00:00, the first hour reads the whole table: "
                 f"{status_fields(first, 'rows', 'check_column', 'up_to')}")
        orders(1001, 1200)
        killed = tour.run([str(BIN / "spark-submit"), "--master", "local[1]", "--conf", "spark.ui.enabled=false",
                           str(PROJECT / "demo" / "killed_import.py"), *call[1:], "--time", "2026-01-01T01:00Z",
                           "--lease", "3"], codes=(-9, 137))
        tour.say(f"01:00, killed with SIGKILL after publishing its 200 rows, before moving its mark (exit "
                 f"{killed.returncode}); 50 more orders come")
        orders(1201, 1250)
        time.sleep(3.5)  # its lease expires
        again = tour.spark(*call, "--time", "2026-01-01T01:00Z", codes=(4,))
        tour.lines(again.stderr, 2, 230)
        third = tour.spark(*call, "--time", "2026-01-01T02:00Z")
        tour.say(f"02:00: {status_fields(third, 'rows', 'after', 'up_to')}")
        hours = ("2026-01-01T00:00Z", "2026-01-01T01:00Z", "2026-01-01T02:00Z")
        counted = tour.spark(str(SCRIPTS / "count_orders.py"), str(PRIMARY), *hours).stdout.split()
        tour.say(f"the three hours hold {counted[0]} orders, {counted[1]} distinct, of the table's "
                 f"{sql('SELECT count(*) FROM orders').strip()}: none lost, none twice")
        export = ("export", "--repo", REPO, "--feed", "top-pages", "--cluster", "primary",
                  "--time", "2026-01-01T00:00Z")
        exported = tour.spark(*export)
        top = sql("SELECT page, clicks FROM top_pages_latest ORDER BY clicks DESC, page LIMIT 1").split()
        tour.say(f"top-pages of 2026-01-01 exported (load snapshot, one transaction): "
                 f"{status_fields(exported, 'rows')}; top_pages_latest's first: {top[0]} with {top[1]} clicks")
        twice = tour.spark(*export, codes=(4,))
        tour.say(f"the same export again: exit 4, {twice.status['status']} (it is recorded in the ledger and in the "
                 "database's feed_toolkit_exports)")
    finally:
        server.stop()
    tour.done("database import and export", "an incremental import killed and finished, an export once",
              "entrypoints/import.py, export.py, docs/datasources.md")


def quality(tour: Tour) -> None:
    tour.block("Quality gates: a bad hour (a page without its leading slash) blocked before it is published")
    tour.python("generate_clicks.py", "--root", str(PRIMARY), "--start", "2026-01-03T08:00Z", "--hours", "3")
    part = PRIMARY / "data/clicks/2026/01/03/10/part-00000.json"
    part.write_text(part.read_text().replace('"/cart"', '"cart"'))
    blocked = tour.spark("process", "--repo", REPO, "--process", "hourly-clicks-summary", "--cluster", "primary",
                         "--time", "2026-01-03T10:00Z", "--max-retry-delay", "0", codes=(1,))
    said = [line for line in (blocked.stdout + blocked.stderr).splitlines() if line.startswith("quality")]
    tour.lines("\n".join(said), 1)
    published = (PRIMARY / "data/clicks-hourly-summary/2026/01/03/10").exists()
    tour.say(f"3 attempts, each blocked; published: {'yes' if published else 'nothing'}")
    tour.done("quality gates", "a bad hour blocked, nothing published", "quality/*.json, docs/quality.md")


def late_data(tour: Tour) -> None:
    tour.block("Late data: the clicks of 2026-01-01T09:00Z rewritten after the summaries ran; the check reruns them")
    part = PRIMARY / "data/clicks/2026/01/01/09/part-00000.json"
    part.write_text(part.read_text().replace('"/cart"', '"/carx"'))
    late = tour.spark("late_check", "--repo", REPO, "--process", "hourly-clicks-summary", "--cluster", "primary",
                      "--time", "2026-01-01T12:00Z")
    tour.lines("\n".join(line for line in late.stdout.splitlines() if line.startswith("late_check:")), 3)
    tour.say("lineage of the rerun summary of 10:00 (toolkit lineage):")
    tour.lines(tour.toolkit("lineage", "--repo", REPO, "--cluster", "primary", "--feed", "clicks-hourly-summary",
                            "--time", "2026-01-01T10:00Z", "--up", "1"), 4)
    tour.done("late data and instance lineage", "the hours reading 09:00 rerun, their lineage",
              "entrypoints/late_check.py, toolkit lineage")


def control(tour: Tour) -> None:
    tour.block("Safemode, publish and dataset events: an outside producer's hour recorded; nothing acts in safemode")
    tour.python("generate_clicks.py", "--root", str(PRIMARY), "--start", "2026-01-02T03:00Z", "--hours", "1")
    tour.toolkit("safemode", "on", "--repo", REPO, "--cluster", "primary", "--reason", "demo")
    blocked = tour.spark("retention", "--repo", REPO, "--feed", "clicks", "--cluster", "primary",
                         "--time", "2026-04-01T00:00Z", codes=(5,))
    tour.say(f"retention in safemode: exit 5, {blocked.status['status']}")
    tour.toolkit("safemode", "off", "--repo", REPO, "--cluster", "primary")
    tour.lines(tour.toolkit("publish", "--repo", REPO, "--feed", "clicks", "--cluster", "primary",
                            "--time", "2026-01-02T03:00Z"), 1)
    tour.lines(tour.toolkit("events", "--repo", REPO, "--cluster", "primary", "--feed", "clicks",
                            "--from", "2026-01-02T03:00Z"), 3)
    tour.done("safemode, publish, events", "exit 5 in safemode, a published hour, its event",
              "toolkit safemode, publish, events")


def triggers(tour: Tour, submit: str) -> None:
    tour.block("Data-aware triggering: published clicks start the hourly summaries; their events start a batch "
               "consumer")
    repo, root = str(DEMO / "trigger-repo"), str(DEMO / "trigger-primary")
    tour.python("trigger_repo.py", "--to", repo, "--root", root)
    tour.python("generate_clicks.py", "--root", root, "--start", "2025-12-31T23:00Z", "--hours", "4")
    for hour in ("2025-12-31T23:00Z", "2026-01-01T00:00Z", "2026-01-01T01:00Z", "2026-01-01T02:00Z"):
        tour.toolkit("publish", "--repo", repo, "--feed", "clicks", "--cluster", "primary", "--time", hour)
    sweep = ("trigger", "--repo", repo, "--cluster", "primary", "--spark-submit", submit, "--wait")
    started = [line.split(" (log")[0] for line in tour.toolkit(*sweep).splitlines() if line.startswith("started")]
    tour.lines("\n".join(started), 3)
    batch = [line.split(" (log")[0] for line in tour.toolkit(*sweep).splitlines() if line.startswith("started")]
    tour.lines("\n".join(batch), 2)
    tour.done("data-aware triggering", f"{len(started)} summaries started by published data, then a batch",
              "toolkit trigger, toolkit queue")


def backfill(tour: Tour, submit: str) -> None:
    tour.block("Backfill: the hourly summary and the replication of clicks over three hours, in dependency order, "
               "resumed from the ledgers")
    tour.python("generate_clicks.py", "--root", str(PRIMARY), "--start", "2026-01-02T00:00Z", "--hours", "2")
    window = ("--repo", REPO, "--cluster", "primary", "--process", "hourly-clicks-summary", "--feed", "clicks",
              "--from", "2026-01-01T23:00Z", "--to", "2026-01-02T01:00Z")
    tour.lines(tour.toolkit("backfill", *window, "--dry-run"), 9)
    ran = tour.toolkit("backfill", *window, "--spark-submit", submit, "--log-dir", str(DEMO / "backfill-logs"))
    tour.say(ran.strip())
    tour.done("backfills", "a window over a process and a replication; what ran before is skipped",
              "toolkit backfill")
    reruns = tour.toolkit("rerun", "--repo", REPO, "--feed", "clicks", "--action", "replication", "--cluster",
                          "backup", "--from", "2026-01-02T00:00Z", "--to", "2026-01-02T01:00Z", "--status", "SUCCEEDED")
    tour.say("toolkit rerun: the call that copies a replicated hour again, whole (--execute runs them):")
    tour.lines("\n".join("... " + line[line.index("entrypoints/"):] for line in reruns.splitlines()), 2)
    tour.done("reruns", "a feed action's instances from their records, each with the call that reruns it",
              "toolkit rerun")


def ingest(tour: Tour, submit: str) -> None:
    tour.block("Streaming ingest: a shipper drops page views; each record committed into its hour exactly once")
    for folder in ("landing/page-views", "rejected/page-views", "data/page-views", "data/page-view-counts",
                   "feed-toolkit/working/ingest/page-views", "feed-toolkit/working/ledger/ingest/page-views",
                   "feed-toolkit/working/ledger/events/page-views",
                   "feed-toolkit/working/ledger/processes/hourly-page-view-counts"):
        shutil.rmtree(PRIMARY / folder, ignore_errors=True)
    call = ("ingest", "--repo", REPO, "--feed", "page-views", "--cluster", "primary", "--once")
    tour.python("drop_page_views.py", "--root", str(PRIMARY), "--start", "2026-01-01T10:00Z", "--minutes", "40")
    first = tour.spark(*call)
    tour.lines("\n".join(line for line in first.stdout.splitlines() if line.startswith("ingest:")), 1)
    tour.python("drop_page_views.py", "--root", str(PRIMARY), "--start", "2026-01-01T10:40Z", "--minutes", "40")
    second = tour.spark(*call)
    tour.lines("\n".join(line for line in second.stdout.splitlines() if line.startswith("ingest:")), 1)
    tour.say(f"the dead letters: {len(list((PRIMARY / 'rejected/page-views').glob('*.json')))} file(s) with file, "
             "offset, line and reason")
    compacted = tour.spark("compact", "--repo", REPO, "--feed", "page-views", "--cluster", "primary",
                           "--time", "2026-01-01T10:00Z")
    tour.say(f"compaction of the closed hour 10:00: {status_fields(compacted, 'status')}")
    out = tour.toolkit("trigger", "--repo", REPO, "--cluster", "primary", "--spark-submit", submit, "--wait")
    tour.lines("\n".join(line.split(" (log")[0] for line in out.splitlines() if line.startswith("started")), 1)
    tour.done("streaming ingest", "landing files committed once, closed, compacted, consumed",
              "entrypoints/ingest.py, README.md#streaming-ingest")


def scheduling(tour: Tour) -> None:
    tour.block("Schedules: every call primary needs, as a crontab, Airflow DAG files and an Oozie bundle")
    crontab = tour.toolkit("schedule", "--repo", REPO, "--cluster", "primary", *SCHEDULE_PATHS)
    entries = [line for line in crontab.splitlines() if line[:1].isdigit() or line[:1] == "*"]
    tour.say(f"{len(entries)} crontab entries, the first:")
    tour.lines(entries[0], 1, width=400)
    hour = "2026-06-01T07:00Z"  # an hour whose clicks never came: its call, as Airflow's task makes it (--no-wait)
    waited = tour.run([str(BIN / "toolkit"), "call", "--every", "hours(1)", "--from", "2026-01-01T00:00Z", "--time",
                       hour, "--wait-first", "--", str(BIN / "spark-submit"), "entrypoints/process.py", "--repo",
                       REPO, "--process", "hourly-clicks-summary", "--cluster", "primary", "--no-wait", "--now",
                       "2026-06-01T07:30Z"], (3,))
    line = json.loads(waited.stdout.strip().splitlines()[-1])
    tour.say(f"a process's line waits for its inputs before spark-submit starts (--wait-first): {hour} is "
             f"{line['status']}, {len(line['missing'])} hours of clicks missing, said in {line['elapsed_seconds']} s "
             "with no JVM")
    per_cluster = tour.toolkit("schedule", "--repo", REPO, "--cluster", "primary", *SCHEDULE_PATHS, "--retention",
                               "per-cluster")
    retained = [line for line in per_cluster.splitlines() if "retention" in line and line[:1] in "0123456789*"]
    tour.say(f"--retention per-cluster: {len(retained)} retention line for the cluster's feeds, not one per feed:")
    when, command = " ".join(retained[0].split()[:5]), retained[0].rsplit('; "', 1)[-1]
    tour.lines(f'{when} ... "{command}', 1, width=400)  # the cron fields and the command, past the log rotation
    out = OUT / "schedule"
    shutil.rmtree(out, ignore_errors=True)
    for kind in ("airflow", "oozie"):
        tour.toolkit("schedule", "--repo", REPO, "--cluster", "primary", *SCHEDULE_PATHS, "--format", kind,
                     "--out", str(out / kind))
        tour.say(f"{kind}: {sum(1 for path in (out / kind).rglob('*') if path.is_file())} files in "
                 f"demo-output/schedule/{kind}")
    tour.toolkit("schedule", "--repo", REPO, "--cluster", "primary", *SCHEDULE_PATHS, "--format", "airflow",
                 "--out", str(out / "airflow"), "--check")
    tour.say("--check (CI, the pre-commit hook): up to date")
    tour.block("SLAs: the clicks and summaries of 2026-01-01 00:00-02:00 judged as of 06:00 that day")
    tour.lines(tour.toolkit("sla", "--repo", REPO, "--cluster", "primary", "--now", "2026-01-01T06:00Z",
                            "--from", "2026-01-01T00:00Z", "--to", "2026-01-01T02:00Z", "--no-notify",
                            codes=(0, 1)), 3)
    tour.done("schedules", "crontab, Airflow, Oozie; --check; one retention line per cluster; waits with no JVM",
              "toolkit schedule, docs/scheduling.md")
    tour.done("SLAs", "misses judged from the ledger", "toolkit sla")


def graph_and_ledger(tour: Tour) -> None:
    tour.block("The graph, coloured by primary's ledger, its status page, and a ledger of years rolled up by month")
    OUT.mkdir(exist_ok=True)
    tour.toolkit("graph", "--repo", REPO, "--cluster", "primary", "--ledger", "--out", str(OUT / "pipelines.html"))
    tour.say("demo-output/pipelines.html (open it in a browser; a click on a node shows its instances)")
    tour.lines(tour.toolkit("graph", "--repo", REPO, "--cluster", "backup", "--ledger", "--format", "mermaid"), 3)
    tour.lines(tour.toolkit("report", "--repo", REPO, "--cluster", "primary", "--now", "2026-01-02T00:00Z",
                            "--graph-page", "pipelines.html", "--out", str(OUT / "status.html")), 1)
    tour.say("demo-output/status.html (open it first: every instance of primary's feeds and processes by state; a "
             "click on a cell shows its attempts and the command that reruns it)")
    tour.lines(tour.toolkit("ledger-rollup", "--repo", REPO, "--cluster", "primary", "--now", "2026-02-01T00:00Z"), 2)
    summary = tour.toolkit("summary", "--repo", REPO, "--process", "hourly-clicks-summary", "--cluster", "primary",
                           "--from", "2026-01-01T00:00Z", "--to", "2026-01-01T23:00Z").splitlines()
    tour.lines("\n".join(summary[:2] + [line for line in summary[2:] if not line.rstrip().endswith(" 0")]), 4)
    tour.done("graph", "the pipelines page and Mermaid", "demo-output/pipelines.html, toolkit graph")
    tour.done("status page", "every instance of the cluster by state", "demo-output/status.html, toolkit report")
    tour.done("ledger", "January rolled up, the summary reads the same", "toolkit ledger-rollup, docs/ledger.md")


def metrics(tour: Tour) -> None:
    tour.block("Metrics for Prometheus: primary's ledger as node_exporter's textfile, the day of 2026-01-01")
    folder = OUT / "metrics"
    folder.mkdir(parents=True, exist_ok=True)
    tour.lines(tour.toolkit("metrics", "--repo", REPO, "--cluster", "primary", "--now", "2026-01-02T00:00Z",
                            "--window", "days(1)", "--textfile", str(folder)).replace(str(OUT), "demo-output"), 1)
    counts = 'feed_toolkit_process_instances{cluster="primary",pipeline="clicks",process="hourly-clicks-summary"'
    freshness = 'feed_toolkit_feed_freshness_seconds{cluster="primary",feed="clicks"'
    lines = (folder / "feed_toolkit.prom").read_text().splitlines()
    tour.lines("\n".join(line for line in lines if line.startswith(freshness)
                         or line.startswith(counts) and not line.endswith(" 0.0")), 4, width=400)
    tour.done("metrics", "freshness, instances by state, SLA misses, action runs; alerting rules",
              "demo-output/metrics/feed_toolkit.prom, docs/metrics.md")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tour.py", description=__doc__.splitlines()[0])
    parser.add_argument("--master", default="local[2]", help="The Spark master of the demo's driver.")
    args = parser.parse_args(argv)
    from toolkit.devtools.local_metastore import MetastoreServer

    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable}
    print("Starting the demo's one Spark driver and its metastores (primary 9083, backup 9084) ...", flush=True)
    spark_submit = [str(BIN / "spark-submit"), "--master", args.master, "--conf", "spark.ui.enabled=false",
                    "--conf", "spark.sql.catalogImplementation=hive",
                    "--conf", "spark.hadoop.hive.metastore.uris=thrift://127.0.0.1:9083"]
    driver = Driver(spark_submit, env)
    metastores = []
    for name, port in (("primary", 9083), ("backup", 9084)):
        shutil.rmtree(DEMO / f"metastore-{name}", ignore_errors=True)
        metastores.append(MetastoreServer.start(DEMO / f"metastore-{name}", port=port))
    os.environ.update({name: env[name] for name in ("SPARK_LOCAL_IP", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")})
    os.environ["FEED_TOOLKIT_DEMO_DRIVER"] = driver.socket
    tour = Tour(driver)
    submit = str(PROJECT / "demo" / "submit.py")
    try:
        for step in (lint_and_plan, falcon, falcon_oozie, retention, replication, data_safety, tables, processes,
                     quality, databases, late_data, control, scheduling, graph_and_ledger):
            step(tour)
        triggers(tour, submit)
        backfill(tour, submit)
        ingest(tour, submit)
        metrics(tour)
        tour.summary()
    except DemoError as err:
        print(f"\nThe demo stopped: {err}", file=sys.stderr)
        return 1
    finally:
        try:
            driver.stop()
        finally:  # a driver that died (its log says why) leaves the metastores to stop all the same
            for server in metastores:
                server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
