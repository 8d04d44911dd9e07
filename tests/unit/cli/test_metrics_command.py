"""`toolkit metrics` on a known ledger (tests/unit/cli/ledger_site.py's `history`): the values of each family, read
back with prometheus-client's own parser, and the bad calls. The exporters that read them (node_exporter,
Prometheus, promtool) are in tests/integration/metrics/."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from tests.unit.cli.ledger_site import NOW, NOW_SECONDS, PROCESS, PUBLISHED_AT, Site, at, run
from tests.unit.forking import allow_forks, calls_here
from toolkit.cli import metrics_exposition as exposition
from toolkit.cli.metrics_exposition import registry_of, text
from toolkit.cli.metrics_text import FamilyText, family_texts, joined
from toolkit.core.entities.model import Cluster, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import process_grid
from toolkit.core.ledger.holds import Hold
from toolkit.core.ledger.records import stamp_seconds
from toolkit.core.ledger.rollups import roll_up
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.orchestration.schedule.sla.check import process_sla
from toolkit.statuses import Status
from toolkit.views.ledger_access import Now, open_ledger
from toolkit.views.metrics import cluster_readings
from toolkit.views.metrics.cluster_readings import ClusterScope
from toolkit.views.metrics.entity_readings import FINISHED, PROCESS_STATES, SlaMisses, labels_of, window_times
from toolkit.views.metrics.families import Families, LedgerCollector
from toolkit.views.metrics.readings import ProcessReading, Window
from toolkit.views.status.instance_rows import count_statuses, instance_rows

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def samples(text: str) -> Samples:
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def value(found: Samples, name: str, **labels: str) -> float:
    matches = [v for (n, have), v in found.items() if n == name and set(labels.items()) <= have]
    assert len(matches) == 1, f"{name} {labels}: {len(matches)} samples"
    return matches[0]


def metrics(capsys: pytest.CaptureFixture[str], site: Site, *argv: str) -> Samples:
    code, out, err = run(capsys, "metrics", "--repo", str(site.conf), "--cluster", "primary", "--now", NOW,
                         "--window", "hours(8)", *argv)
    assert code == 0, err
    return samples(out)


def test_a_process_instances_are_counted_by_the_status_that_toolkit_status_shows(
        capsys: pytest.CaptureFixture[str], metered: Site) -> None:
    found = metrics(capsys, metered)
    # the window (02:30, 10:30]: 03 succeeded, 04 failed, 05 timed out, 06 killed (its run died), 07 running,
    # 08 waiting (recorded), 09 and 10 waiting (never run)
    counts = {state: value(found, "feed_toolkit_process_instances", process=PROCESS, state=state)
              for state in ("succeeded", "failed", "timedout", "killed", "running", "waiting", "skipped",
                            "suspended")}
    assert counts == {"succeeded": 1, "failed": 1, "timedout": 1, "killed": 1, "running": 1, "waiting": 3,
                      "skipped": 0, "suspended": 0}
    assert value(found, "feed_toolkit_process_attempts", process=PROCESS) == 1 + 3 + 1 + 1 + 1 + 0
    assert value(found, "feed_toolkit_process_last_success_timestamp_seconds", process=PROCESS) == \
        datetime(2026, 11, 21, 3, 3, 30, tzinfo=timezone.utc).timestamp()
    # finished instances' durations: 03:00 ran 150 s, 04:00 300 s (to its failure's record); 06:00 has no end
    assert value(found, "feed_toolkit_process_duration_seconds_count", process=PROCESS) == 2
    assert value(found, "feed_toolkit_process_duration_seconds_sum", process=PROCESS) == 450
    assert value(found, "feed_toolkit_process_duration_seconds_bucket", process=PROCESS, le="60.0") == 0
    assert value(found, "feed_toolkit_process_duration_seconds_bucket", process=PROCESS, le="300.0") == 2


def test_a_process_without_a_success_in_the_window_reports_its_newest_before_it_from_a_rollup(
        capsys: pytest.CaptureFixture[str], metered: Site) -> None:
    a_month_on = datetime(2026, 12, 21, 10, 30, tzinfo=timezone.utc)
    report = roll_up(metered.ledger(a_month_on.timestamp()), PROCESS, a_month_on, "rollup-1")
    assert report.rolled == 3  # 03:00 to 05:00; the running and waiting instances keep their folders
    code, out, err = run(capsys, "metrics", "--repo", str(metered.conf), "--cluster", "primary", "--now",
                         "2026-12-21T10:30Z", "--window", "hours(2)")
    assert code == 0, err
    found = samples(out)
    assert value(found, "feed_toolkit_process_instances", process=PROCESS, state="waiting") == 2
    assert value(found, "feed_toolkit_process_last_success_timestamp_seconds", process=PROCESS) == \
        datetime(2026, 11, 21, 3, 3, 30, tzinfo=timezone.utc).timestamp()


def test_a_feeds_freshness_is_now_minus_the_end_of_its_newest_published_instance(
        capsys: pytest.CaptureFixture[str], metered: Site) -> None:
    found = metrics(capsys, metered)
    assert value(found, "feed_toolkit_feed_last_published_timestamp_seconds", feed="clicks") == int(PUBLISHED_AT)
    # newest published: 08:00, whose hour ends at 09:00; now is 10:30
    assert value(found, "feed_toolkit_feed_freshness_seconds", feed="clicks") == 5400
    assert value(found, "feed_toolkit_feed_stale_after_seconds", feed="clicks") == 3600 + 4 * 3600  # + slaHigh
    assert value(found, "feed_toolkit_feed_instances", feed="clicks", state="published") == 2
    assert value(found, "feed_toolkit_feed_instances", feed="clicks", state="unrecorded") == 6
    # clicks' slaHigh is 4 hours: 03:00 to 06:00 are past it at 10:30 and never arrived
    assert value(found, "feed_toolkit_feed_sla_misses", feed="clicks", state="missed") == 4
    assert value(found, "feed_toolkit_feed_instances", feed="clicks", state="published", tag_owner="web-analytics") == 2


def test_only_an_entity_with_an_sla_has_sla_series_and_no_label_is_written_empty(
        capsys: pytest.CaptureFixture[str], metered: Site) -> None:
    """A count of SLA misses of an entity that has no SLA would say nothing; and Prometheus takes an empty label for
    no label, so a feed (which has no pipelines) or an untagged entity is written without one. A process's miss is
    past shouldEndIn: one whose SLA has only shouldStartIn has no series either."""
    report = metered.conf / "processes" / "daily-visits-report.yaml"
    report.write_text(report.read_text() + "sla: {shouldStartIn: hours(1)}\n")
    found = metrics(capsys, metered)
    with_misses = {(name, dict(labels).get("feed") or dict(labels).get("process"), dict(labels)["state"])
                   for name, labels in found if name.endswith("_sla_misses")}
    assert with_misses == {(f"feed_toolkit_{kind}_sla_misses", entity, state)
                           for kind, entity in [("feed", "clicks"), ("process", "daily-clicks-rollup"),
                                                ("process", PROCESS)] for state in ("missed", "late")}
    assert all(value for _, labels in found for _, value in labels)
    assert {dict(labels).get("pipeline") for name, labels in found
            if name == "feed_toolkit_process_attempts"} == {"clicks", "page-views", None}  # None: daily-visits-report
    assert not any("pipeline" in dict(labels) for name, labels in found if name.startswith("feed_toolkit_feed_"))


def test_the_newest_retention_run_and_the_window_are_reported(capsys: pytest.CaptureFixture[str],
                                                             metered: Site) -> None:
    found = metrics(capsys, metered)
    assert value(found, "feed_toolkit_action_bytes", feed="clicks", action="retention") == 123456
    assert value(found, "feed_toolkit_action_files", feed="clicks", action="retention") == 3
    assert value(found, "feed_toolkit_metrics_window_seconds", cluster="primary") == 8 * 3600
    assert value(found, "feed_toolkit_metrics_read_timestamp_seconds", cluster="primary") == NOW_SECONDS
    assert value(found, "feed_toolkit_metrics_read_ok", cluster="primary") == 1
    assert value(found, "feed_toolkit_lineage_events_unsent", cluster="primary") == 0
    assert not any(name.endswith("_timestamp_seconds") and ("time", "2026-11-21T08:00Z") in labels
                   for name, labels in found)


def test_the_textfile_holds_what_is_printed_and_nothing_else_is_left_in_its_folder(
        capsys: pytest.CaptureFixture[str], metered: Site, tmp_path: Path) -> None:
    folder = tmp_path / "textfiles"
    folder.mkdir()
    printed = metrics(capsys, metered)
    code, out, err = run(capsys, "metrics", "--repo", str(metered.conf), "--cluster", "primary", "--now", NOW,
                         "--window", "hours(8)", "--textfile", str(folder))
    assert code == 0, err
    assert out.startswith(f"metrics: wrote {folder / 'feed_toolkit.prom'}: cluster 'primary', ")
    assert [path.name for path in folder.iterdir()] == ["feed_toolkit.prom"]
    assert samples((folder / "feed_toolkit.prom").read_text()) == printed


def test_a_textfile_that_is_a_link_is_replaced_and_what_it_pointed_to_left_as_it_was(
        capsys: pytest.CaptureFixture[str], metered: Site, tmp_path: Path) -> None:
    """A link where the textfile goes (to another team's file): the link is replaced by the file, as a rename
    replaces a name; the file it pointed to is not written."""
    folder, elsewhere = tmp_path / "textfiles", tmp_path / "other-team.prom"
    folder.mkdir()
    elsewhere.write_text("theirs\n")
    (folder / "feed_toolkit.prom").symlink_to(elsewhere)
    printed = metrics(capsys, metered)
    code, _, err = run(capsys, "metrics", "--repo", str(metered.conf), "--cluster", "primary", "--now", NOW,
                       "--window", "hours(8)", "--textfile", str(folder))
    assert code == 0, err
    assert elsewhere.read_text() == "theirs\n"
    assert not (folder / "feed_toolkit.prom").is_symlink()
    assert samples((folder / "feed_toolkit.prom").read_text()) == printed


def test_a_link_planted_at_the_temporary_name_is_never_written_through(
        capsys: pytest.CaptureFixture[str], metered: Site, tmp_path: Path) -> None:
    """Another user of the textfile folder plants a link where the temporary file would go, by the name a writer of
    this process would give it (its pid and thread): the file it points to is never written, nor put in the
    textfile's place."""
    folder, elsewhere = tmp_path / "textfiles", tmp_path / "other-team.prom"
    folder.mkdir()
    elsewhere.write_text("theirs\n")
    planted = folder / f"feed_toolkit.prom.{os.getpid()}.{threading.get_ident()}"
    planted.symlink_to(elsewhere)
    printed = metrics(capsys, metered)
    code, _, err = run(capsys, "metrics", "--repo", str(metered.conf), "--cluster", "primary", "--now", NOW,
                       "--window", "hours(8)", "--textfile", str(folder))
    assert elsewhere.read_text() == "theirs\n"
    assert code == 0, err
    assert not (folder / "feed_toolkit.prom").is_symlink()
    assert samples((folder / "feed_toolkit.prom").read_text()) == printed
    assert sorted(path.name for path in folder.iterdir()) == ["feed_toolkit.prom", planted.name]


@pytest.mark.parametrize(("argv", "said"), [
    (["--window", "months(1)"], "--window 'months(1)' has no fixed length"),
    (["--window", "a week"], "--window 'a week' is not days(N), hours(N) or minutes(N)."),
    (["--listen", "localhost:http"], "--listen 'localhost:http' is not HOST:PORT or PORT"),
    (["--listen", "9464", "--textfile", "/tmp"], "Give --textfile or --listen, not both"),
    (["--textfile", "/nonexistent/textfiles"], "--textfile /nonexistent/textfiles is not a folder"),
])
def test_a_bad_call_is_one_sentence_and_exit_2(capsys: pytest.CaptureFixture[str], metered: Site,
                                               argv: list[str], said: str) -> None:
    code, out, err = run(capsys, "metrics", "--repo", str(metered.conf), "--cluster", "primary", "--now", NOW, *argv)
    assert (code, out) == (2, "")
    assert said in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_feed_whose_data_folder_is_gone_is_as_fresh_as_its_newest_publication_event(
        capsys: pytest.CaptureFixture[str], metered: Site) -> None:
    """No flag can be probed (the folder above the data path's first variable is not there): the newest instance is
    the newest with events, searched among those alone."""
    shutil.rmtree(metered.primary / "data" / "clicks")
    found = metrics(capsys, metered)
    assert value(found, "feed_toolkit_feed_last_published_timestamp_seconds", feed="clicks") == int(PUBLISHED_AT)
    assert value(found, "feed_toolkit_feed_freshness_seconds", feed="clicks") == 5400  # 08:00's hour ended at 09:00
    assert value(found, "feed_toolkit_feed_instances", feed="clicks", state="unrecorded") == 6


def test_an_outside_producers_instance_counts_by_its_flag_as_toolkit_sla_judges_it(
        capsys: pytest.CaptureFixture[str], metered: Site) -> None:
    metered.clicks(10)  # no event: its _SUCCESS flag says it is there
    flag = metered.primary / "data" / "clicks" / "2026" / "11" / "21" / "10" / "_SUCCESS"
    os.utime(flag, (NOW_SECONDS - 60, NOW_SECONDS - 60))
    found = metrics(capsys, metered)
    assert value(found, "feed_toolkit_feed_last_published_timestamp_seconds", feed="clicks") == NOW_SECONDS - 60
    assert value(found, "feed_toolkit_feed_freshness_seconds", feed="clicks") == 0  # 10:00's hour is not over
    assert value(found, "feed_toolkit_feed_instances", feed="clicks", state="unrecorded") == 6


def test_a_damaged_ledger_record_is_named_and_the_textfile_left_as_it_was(
        capsys: pytest.CaptureFixture[str], metered: Site, tmp_path: Path) -> None:
    folder = tmp_path / "textfiles"
    folder.mkdir()
    (folder / "feed_toolkit.prom").write_text("# the previous call's metrics\n")
    damaged = metered.ledger_root / "processes" / PROCESS / "20261121T0400Z" / "instance.json"
    damaged.write_text('{"status": ')
    code, out, err = run(capsys, "metrics", "--repo", str(metered.conf), "--cluster", "primary", "--now", NOW,
                         "--textfile", str(folder))
    assert (code, out) == (1, "")
    assert f"The ledger record file://{damaged} is damaged" in err and "Traceback" not in err
    assert (folder / "feed_toolkit.prom").read_text() == "# the previous call's metrics\n"
    assert [path.name for path in folder.iterdir()] == ["feed_toolkit.prom"]


def test_a_scrape_of_a_damaged_ledger_answers_read_ok_0_and_says_why(metered: Site,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    damaged = metered.ledger_root / "processes" / PROCESS / "20261121T0400Z" / "instance.json"
    damaged.write_text('{"status": ')
    told: list[str] = []
    collector = LedgerCollector("primary", scope_of(metered), tell=lambda err: told.append(str(err)))
    scraped = samples(generate_latest(registry_of(collector)).decode())  # as a scrape of --listen writes it
    assert scraped == {("feed_toolkit_metrics_read_ok", frozenset({("cluster", "primary")})): 0.0}
    assert len(told) == 1 and "is damaged" in told[0]


def test_a_temporary_file_left_by_a_killed_writer_is_removed_and_a_live_ones_kept(
        capsys: pytest.CaptureFixture[str], metered: Site, tmp_path: Path) -> None:
    folder = tmp_path / "textfiles"
    folder.mkdir()
    dead = folder / ".feed_toolkit.prom.4194303.abcd1234.tmp"  # above pid_max's default: no process has it
    live = folder / f".feed_toolkit.prom.{os.getpid()}.abcd1234.tmp"  # a writer running now (this test's own process)
    other = folder / "feed_toolkit.prom.backup"  # not the writer's temporary name: someone else's
    for path in (dead, live, other):
        path.write_text("# half written\n")
    code, _, err = run(capsys, "metrics", "--repo", str(metered.conf), "--cluster", "primary", "--now", NOW,
                       "--textfile", str(folder))
    assert code == 0, err
    assert sorted(path.name for path in folder.iterdir()) == sorted(["feed_toolkit.prom", live.name, other.name])
    assert err == f"metrics: removed {dead}, the temporary file of a call killed while writing\n"


@pytest.mark.parametrize("damage", ['{"bytes_freed": ', '{"bytes_freed": "lots"}', '[1, 2]'])
def test_a_damaged_run_record_is_named_not_counted_as_nothing(capsys: pytest.CaptureFixture[str], metered: Site,
                                                             damage: str) -> None:
    record = metered.primary / "feed-toolkit" / "working" / "retention" / "clicks" / "20261121T1000Z.json"
    record.write_text(damage)
    code, out, err = run(capsys, "metrics", "--repo", str(metered.conf), "--cluster", "primary", "--now", NOW)
    assert (code, out) == (1, "")
    assert f"The ledger record file://{record} is damaged" in err and "Traceback" not in err


def test_a_damaged_notification_record_is_named(capsys: pytest.CaptureFixture[str], metered: Site) -> None:
    folder = metered.ledger_root / "notifications" / "process" / PROCESS / "20261121T0400Z"
    folder.mkdir(parents=True)
    (folder / "attempt-failed.json").write_text('{"outcome": "failed"}')
    (folder / "failed.json").write_text('{"outcome": "fail')
    code, out, err = run(capsys, "metrics", "--repo", str(metered.conf), "--cluster", "primary", "--now", NOW)
    assert (code, out) == (1, "")
    assert f"The ledger record file://{folder / 'failed.json'} is damaged" in err
    (folder / "failed.json").write_text('{"outcome": "sent"}')
    found = metrics(capsys, metered)
    assert value(found, "feed_toolkit_notifications_failed", entity=PROCESS) == 1


def test_a_textfile_that_cannot_be_replaced_is_one_sentence_and_leaves_no_temporary_file(
        capsys: pytest.CaptureFixture[str], metered: Site, tmp_path: Path) -> None:
    folder = tmp_path / "textfiles"
    folder.mkdir()
    (folder / "feed_toolkit.prom").mkdir()  # where the file goes, a folder: the rename fails
    (folder / ".feed_toolkit.prom.4194303.abcd1234.tmp").mkdir()  # named like a dead writer's file, a folder: not ours
    code, out, err = run(capsys, "metrics", "--repo", str(metered.conf), "--cluster", "primary", "--now", NOW,
                         "--textfile", str(folder))
    assert (code, out) == (2, "")
    assert f"Cannot write {folder / 'feed_toolkit.prom'}: Is a directory;" in err and "Traceback" not in err
    assert sorted(path.name for path in folder.iterdir()) == [".feed_toolkit.prom.4194303.abcd1234.tmp",
                                                              "feed_toolkit.prom"]


def test_an_empty_textfile_is_refused_not_taken_as_the_current_folder(capsys: pytest.CaptureFixture[str],
                                                                      metered: Site) -> None:
    code, out, err = run(capsys, "metrics", "--repo", str(metered.conf), "--cluster", "primary", "--textfile", "")
    assert (code, out) == (2, "")
    assert err.strip() == "toolkit: --textfile is empty: give node_exporter's --collector.textfile.directory."


def test_a_cluster_root_that_is_not_there_is_named_not_read_as_an_empty_ledger(
        capsys: pytest.CaptureFixture[str], metered: Site, tmp_path: Path) -> None:
    folder = tmp_path / "textfiles"
    folder.mkdir()
    metered.primary.rename(tmp_path / "unmounted")
    code, out, err = run(capsys, "metrics", "--repo", str(metered.conf), "--cluster", "primary", "--now", NOW,
                         "--textfile", str(folder))
    assert (code, out) == (1, "")
    assert err == (f"toolkit: The root file://{metered.primary} of cluster 'primary' does not exist: its storage is "
                   "not there (not mounted?) or its write endpoint is wrong; nothing is reported from a place that is "
                   "not there.\n")
    assert list(folder.iterdir()) == []


def test_the_ledgers_read_by_forked_workers_give_the_same_text(capsys: pytest.CaptureFixture[str], metered: Site,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ("metrics", "--repo", str(metered.conf), "--cluster", "primary", "--now", NOW, "--window", "hours(8)")
    monkeypatch.setattr(exposition, "WRITE_APART", 1)
    allow_forks(monkeypatch, cores=1)
    read_alone = calls_here(monkeypatch, cluster_readings, "process_reading")
    alone = run(capsys, *argv)
    processes = len(read_alone)
    workers = allow_forks(monkeypatch, cores=2)
    read_here = calls_here(monkeypatch, cluster_readings, "process_reading")
    written_here = calls_here(monkeypatch, exposition, "family_texts")
    assert run(capsys, *argv) == alone
    assert len(workers) == 1  # it read a part of the entities' ledgers and wrote that part's text
    assert processes >= 2 and 0 < len(read_here) < processes  # the worker's share came from the worker
    assert len(written_here) == 1  # and so did its text
    assert value(samples(alone[1]), "feed_toolkit_process_attempts", process=PROCESS) == 7


def test_a_ledger_whose_connection_a_fork_would_share_is_read_and_written_alone(
        capsys: pytest.CaptureFixture[str], metered: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """WebHDFS's file system holds a connection: a forked worker would share it with this process."""
    argv = ("metrics", "--repo", str(metered.conf), "--cluster", "primary", "--now", NOW, "--window", "hours(8)")
    monkeypatch.setattr(exposition, "WRITE_APART", 1)
    allow_forks(monkeypatch, cores=1)
    alone = run(capsys, *argv)
    workers = allow_forks(monkeypatch, cores=2)
    monkeypatch.setattr(LocalFileSystem, "shared_with_forks", False)
    assert run(capsys, *argv) == alone and alone[0] == 0
    assert workers == []


def scope_of(site: Site, reads: list[int] | None = None) -> Callable[[], ClusterScope]:
    """What a collection of the site's cluster over 8 hours reads; `reads` grows by one at each reading."""
    config = ConfigRepo.load(site.conf)
    cluster = config.cluster("primary")

    def scope() -> ClusterScope:
        if reads is not None:
            reads.append(1)
        now = Now.of(NOW)
        return ClusterScope.of(config, cluster, open_ledger(cluster, now), Window(now.time, timedelta(hours=8)))

    return scope


def counting_collector(site: Site) -> tuple[LedgerCollector, list[int]]:
    """The collector of the site's cluster over 8 hours, and a list that grows by one at each read of its ledger."""
    reads: list[int] = []
    return LedgerCollector("primary", scope_of(site, reads)), reads


def test_the_text_written_in_two_parts_is_the_collections(metered: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """The one-shot text (stdout, --textfile) is read and written a part of the entities per core and joined family
    by family: it is exactly what prometheus-client writes of the whole collection, as a scrape of --listen gets
    it."""
    scope = scope_of(metered)()
    for kind, entity in (("feed", scope.feeds[-1].name), ("process", scope.processes[0].name)):  # in either half
        folder = metered.ledger_root / "notifications" / kind / entity / "20261121T0400Z"
        folder.mkdir(parents=True)
        (folder / "failed.json").write_text('{"outcome": "failed"}')
    collector, reads = counting_collector(metered)
    whole = generate_latest(registry_of(collector)).decode()
    assert whole.count("feed_toolkit_notifications_failed{") == 2
    workers = allow_forks(monkeypatch, cores=2)
    monkeypatch.setattr(exposition, "WRITE_APART", 1)
    written_here = calls_here(monkeypatch, exposition, "family_texts")
    exposed = text(collector)
    assert exposed.text == whole
    assert len(reads) == 2 and len(workers) == 1 and len(written_here) == 1  # the worker wrote the other part
    assert {family.name for family in text_string_to_metric_families(whole)} >= {
        "feed_toolkit_feed_instances", "feed_toolkit_process_duration_seconds", "feed_toolkit_metrics_read_ok"}
    everything = scope_of(metered)().read()
    assert (exposed.feeds, exposed.processes, exposed.action_runs) == \
        (len(everything.feeds), len(everything.processes), len(everything.actions)) and everything.actions


@pytest.mark.parametrize("count", [1, 2, 3, 5, 40])
def test_the_texts_of_any_number_of_parts_join_into_the_whole(metered: Site, count: int) -> None:
    """More parts than entities too: a part may hold no feed, no process or nothing but the cluster's families. Each
    kind is cut at the same fractions, so the parts hold every entity once, in order."""
    scope = scope_of(metered)()
    whole = scope.read()
    parts = [scope.read(index, count) for index in range(count)]
    texts = [family_texts(Families.part(part, index).collect()) for index, part in enumerate(parts)]
    assert joined(texts) == generate_latest(Families(whole)).decode()
    assert [reading for part in parts for reading in part.processes] == list(whole.processes)
    assert [reading for part in parts for reading in part.feeds] == list(whole.feeds)
    assert len(whole.processes) >= 2 and len(whole.feeds) >= 2
    if count == 2:  # a half of each kind in each half
        assert [len(part.feeds) for part in parts] == [len(whole.feeds) // 2, -(-len(whole.feeds) // 2)]
        assert [len(part.processes) for part in parts] == [len(whole.processes) // 2, -(-len(whole.processes) // 2)]


def test_a_part_with_a_family_the_first_has_not_is_refused() -> None:
    first = FamilyText("# HELP a_total A.\n# TYPE a_total counter\n", "a_total 1.0\n")
    other = FamilyText("# HELP b B.\n# TYPE b gauge\n", "b 2.0\n")
    assert joined([[first], [first._replace(samples="a_total 3.0\n")]]) == f"{first.head}a_total 1.0\na_total 3.0\n"
    with pytest.raises(ValueError, match="part 1 of the text has a family the first part has not"):
        joined([[first], [other]])


def test_a_scrape_may_ask_for_families_by_name_and_the_ledger_is_read_once(metered: Site) -> None:
    """`/metrics?name[]=...` (prometheus-client's restricted registry) selects families by the names the collector
    describes: the names come without reading the ledger, and a scrape reads it once."""
    collector, reads = counting_collector(metered)
    registry = registry_of(collector)
    assert reads == []
    chosen = registry.restricted_registry(["feed_toolkit_process_instances",
                                           "feed_toolkit_process_duration_seconds_count"])  # by sample name
    found = samples(generate_latest(chosen).decode())
    assert reads == [1]
    assert {name for name, _ in found} == {"feed_toolkit_process_instances",
                                           "feed_toolkit_process_duration_seconds_count"}
    assert value(found, "feed_toolkit_process_instances", process=PROCESS, state="failed") == 1


def test_a_damaged_record_read_by_a_forked_worker_is_named_as_when_read_alone(
        capsys: pytest.CaptureFixture[str], metered: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    damaged = metered.ledger_root / "processes" / PROCESS / "20261121T0400Z" / "instance.json"
    damaged.write_text('{"status": ')
    argv = ("metrics", "--repo", str(metered.conf), "--cluster", "primary", "--now", NOW)
    monkeypatch.setattr(exposition, "WRITE_APART", 1)
    allow_forks(monkeypatch, cores=1)
    alone = run(capsys, *argv)
    workers = allow_forks(monkeypatch, cores=16)  # a part for each entity: PROCESS's is a worker's
    here, read_here = os.getpid(), []
    reading = cluster_readings.process_reading

    def read_and_named(repo: ConfigRepo, process: Process, *args: Any) -> ProcessReading:
        if os.getpid() == here:
            read_here.append(process.name)
        return reading(repo, process, *args)

    monkeypatch.setattr(cluster_readings, "process_reading", read_and_named)
    assert run(capsys, *argv) == alone
    assert workers and alone[0] == 1 and f"The ledger record file://{damaged} is damaged" in alone[2]
    assert read_here[-1] == PROCESS and read_here.count(PROCESS) == 1  # again here, after its worker failed on it


def reading_from_rows(repo: ConfigRepo, process: Process, cluster: Cluster, ledger: Ledger, window: Window,
                      sla: SlaMisses) -> ProcessReading:
    """A process's reading made from a row of `toolkit status` for each instance of the window: what the readings
    made from outlines must equal."""
    times = window_times(process_grid(process, cluster.name), window)
    rows = instance_rows(repo, process, cluster, ledger, times, window.now.timestamp(), with_missing=False)
    counts = count_statuses(rows, PROCESS_STATES)
    succeeded = [row for row in rows if row.status == Status.SUCCEEDED]
    recorded = sorted((t for t in ledger.recorded_times(process.name) if t <= window.first), reverse=True)
    before = [state for t in recorded if (state := ledger.instance_states(process.name, [t])[t]).status == "SUCCEEDED"]
    last_success = stamp_seconds(succeeded[-1].ended) if succeeded else \
        stamp_seconds(before[0].ended) if before else None
    durations = tuple(float(row.duration_seconds) for row in rows
                      if row.status in FINISHED and row.duration_seconds is not None)
    return ProcessReading(labels_of(process, cluster.name), tuple(counts.items()), last_success,
                          sum(row.attempts for row in rows), durations,
                          sla.of_entity("process", process.name) if _ends_agreed(process, cluster) else ())


def _ends_agreed(process: Process, cluster: Cluster) -> bool:
    agreed = process_sla(process, cluster.name)
    return agreed is not None and agreed.should_end_in is not None


@pytest.mark.parametrize("rolled", [False, True], ids=["folders", "rolled up"])
@pytest.mark.parametrize("held", [(), (3,), (4, 7)], ids=["none held", "a success held", "a failure and a run held"])
@pytest.mark.parametrize("length", [8, 2, 30], ids=["8 hours", "2 hours: no success", "30 hours"])
def test_a_process_reading_from_outlines_is_the_one_its_rows_make(metered: Site, monkeypatch: pytest.MonkeyPatch,
                                                                  rolled: bool, held: tuple[int, ...],
                                                                  length: int) -> None:
    if rolled:  # 03:00 to 05:00 into November's roll-up; the running and waiting instances keep their folders
        a_month_on = datetime(2026, 12, 21, 10, 30, tzinfo=timezone.utc)
        assert roll_up(metered.ledger(a_month_on.timestamp()), PROCESS, a_month_on, "rollup-1").rolled == 3
    for hour in held:
        metered.ledger().set_hold(PROCESS, at(hour), Hold("2026-11-21T10:00:00Z", "alice@edge"))
    config = ConfigRepo.load(metered.conf)
    cluster = config.cluster("primary")
    now = Now.of(NOW)
    window = Window(now.time, timedelta(hours=length))
    from_outlines = ClusterScope.of(config, cluster, open_ledger(cluster, now), window).read()
    monkeypatch.setattr(cluster_readings, "process_reading", reading_from_rows)
    assert ClusterScope.of(config, cluster, open_ledger(cluster, now), window).read() == from_outlines
    summary = next(reading for reading in from_outlines.processes if reading.labels.name == PROCESS)
    assert summary.last_success == datetime(2026, 11, 21, 3, 3, 30, tzinfo=timezone.utc).timestamp() or 3 in held
