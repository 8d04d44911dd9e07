"""`toolkit status --cluster C` without --process (the cluster's entities, Falcon's `entity -list`/`-search`
filters) and `toolkit entity-status` (Falcon's `entity -status`), on a local cluster's ledger (issue 37)."""

from __future__ import annotations

import json

import pytest

from tests.unit.cli.ledger_site import NOW, NOW_SECONDS, PROCESS, Site, at, hdfs_backup, record, run
from toolkit.core.ledger.records import PublicationFacts
from toolkit.views.status.entity_states import is_subsequence

TEMPLATE_PROCESSES = ["daily-clicks-rollup", "hourly-clicks-summary", "hourly-page-view-counts", "top-pages"]
TEMPLATE_FEEDS = ["clicks", "clicks-daily", "clicks-daily-table", "clicks-hourly-summary", "page-view-counts",
                  "page-views", "shop-orders", "top-pages", "visits"]


def listed(capsys: pytest.CaptureFixture[str], site: Site, *argv: str, now: str = NOW) -> list[dict[str, object]]:
    code, out, err = run(capsys, "status", "--repo", str(site.conf), "--cluster", "primary", "--now", now,
                         "--format", "json", *argv)
    assert code == 0, err
    rows: list[dict[str, object]] = json.loads(out)
    return rows


def names(rows: list[dict[str, object]]) -> list[tuple[object, object]]:
    return [(row["kind"], row["name"]) for row in rows]


def test_the_cluster_s_processes_then_feeds_with_their_state_and_newest_instance(
        capsys: pytest.CaptureFixture[str], history: Site) -> None:
    history.ledger().record_publication(PublicationFacts("clicks", "primary", at(8), producer="test", run_id="run-x",
                                                         location="file:///somewhere", fingerprint=None))
    assert run(capsys, "suspend", "top-pages", "--kind", "process", "--repo", str(history.conf), "--cluster",
               "primary", "--reason", "bad data")[0] == 0
    rows = listed(capsys, history)
    assert names(rows) == [("process", name) for name in sorted([*TEMPLATE_PROCESSES, "daily-visits-report"])] + [
        ("feed", name) for name in sorted([*TEMPLATE_FEEDS, PROCESS])]
    by_name = {(row["kind"], row["name"]): row for row in rows}
    summary = by_name[("process", PROCESS)]
    assert summary["state"] == "RUNNING" and summary["last_instance"] == {"time": "2026-11-21T08:00Z",
                                                                           "status": "WAITING"}
    assert summary["tags"] == {"owner": "web-analytics"} and summary["pipelines"] == ["clicks"]
    assert summary["validity"] == {"start": "2026-01-01T00:00Z", "end": "2099-12-31T00:00Z"}
    suspended = by_name[("process", "top-pages")]
    assert suspended["state"] == "SUSPENDED" and suspended["suspended"]["reason"] == "bad data"  # type: ignore[index]
    assert by_name[("feed", "clicks")]["last_instance"] == {"time": "2026-11-21T08:00Z", "status": "published"}
    assert by_name[("feed", "top-pages")]["state"] == "RUNNING"  # the process's switch is not the feed's
    assert by_name[("feed", "visits")]["last_instance"] is None

    code, out, _ = run(capsys, "status", "--repo", str(history.conf), "--cluster", "primary", "--now", NOW, "--wide")
    lines = out.splitlines()
    assert lines[0].split() == ["KIND", "NAME", "STATE", "LAST", "INSTANCE", "LAST", "STATUS", "PIPELINES", "TAGS"]
    assert f"process  {PROCESS}" in out
    assert [line.split()[:6] for line in lines if f"  {PROCESS} " in line and line.startswith("process")] == [
        ["process", PROCESS, "RUNNING", "2026-11-21T08:00Z", "WAITING", "clicks"]]
    assert [line.split()[2] for line in lines if line.split()[:2] == ["process", "top-pages"]] == ["SUSPENDED"]


def test_a_dead_run_s_newest_instance_shows_killed_as_status_does(capsys: pytest.CaptureFixture[str],
                                                                   site: Site) -> None:
    site.ledger().write_instance(record(9, "RUNNING", started="2026-11-21T09:05:00Z"))
    assert site.ledger(NOW_SECONDS - 3600).instance_lock(PROCESS, at(9)).try_acquire("run-09").taken
    row = next(row for row in listed(capsys, site, "--name", PROCESS, "--kind", "process"))
    assert row["last_instance"] == {"time": "2026-11-21T09:00Z", "status": "KILLED"}
    later = next(row for row in listed(capsys, site, "--kind", "process", "--name", PROCESS, now="2026-11-21T08:00Z"))
    assert later["last_instance"] is None  # a record after now is not the newest instance at now


def test_tags_must_all_match_and_pipelines_any(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    tagged = listed(capsys, site, "--tags", "owner=web-analytics")
    assert names(tagged) == [("process", name) for name in TEMPLATE_PROCESSES] + [
        ("feed", name) for name in TEMPLATE_FEEDS]  # the site's own two entities have no tags
    assert names(listed(capsys, site, "--tags", "owner=web-analytics,source=web-frontend")) == [("feed", "clicks")]
    assert names(listed(capsys, site, "--tags", "owner=web-analytics", "--tags", "source=log-shipper")) == [
        ("feed", "page-views")]
    assert listed(capsys, site, "--tags", "owner=someone-else") == []
    pipelines = {row["name"]: row["pipelines"] for row in listed(capsys, site, "--pipeline", "page-views,nothing")}
    assert pipelines == {"hourly-page-view-counts": ["page-views"]}  # feeds have no pipelines: never listed
    assert [name for _, name in names(listed(capsys, site, "--pipeline", "clicks"))] == [
        "daily-clicks-rollup", "hourly-clicks-summary", "top-pages"]


def test_name_is_a_subsequence_case_ignored_and_kind_and_state_filter(capsys: pytest.CaptureFixture[str],
                                                                        site: Site) -> None:
    assert names(listed(capsys, site, "--name", "HCS")) == [
        ("process", PROCESS), ("process", "hourly-page-view-counts"), ("feed", PROCESS)]
    assert names(listed(capsys, site, "--name", "daily-v")) == [("process", "daily-visits-report")]
    assert names(listed(capsys, site, "--name", "visits", "--kind", "feed")) == [("feed", "visits")]
    assert run(capsys, "suspend", "clicks", "--repo", str(site.conf), "--cluster", "primary")[0] == 0
    assert names(listed(capsys, site, "--state", "suspended")) == [("feed", "clicks")]
    running = listed(capsys, site, "--state", "RUNNING", "--kind", "feed")
    assert "clicks" not in [row["name"] for row in running] and len(running) == len(TEMPLATE_FEEDS)
    # After every validity's end (2099-12-31): COMPLETED, except the suspended feed, which stays SUSPENDED.
    done = listed(capsys, site, "--state", "COMPLETED,SUSPENDED", now="2100-01-01T00:00Z")
    assert {row["name"]: row["state"] for row in done if row["kind"] == "feed"}["clicks"] == "SUSPENDED"
    assert {row["state"] for row in done if row["name"] != "clicks"} == {"COMPLETED"}
    assert len(done) == len(TEMPLATE_PROCESSES) + len(TEMPLATE_FEEDS) + 2


def test_is_subsequence() -> None:
    assert is_subsequence("hcs", "hourly-clicks-summary")
    assert is_subsequence("", "anything")
    assert not is_subsequence("sch", "hourly-clicks-summary")
    assert not is_subsequence("hourly-clicks-summaryy", "hourly-clicks-summary")


def test_entity_status_tells_every_cluster_and_unknown_for_an_unreadable_one(capsys: pytest.CaptureFixture[str],
                                                                              history: Site) -> None:
    assert run(capsys, "suspend", "clicks", "--repo", str(history.conf), "--cluster", "primary", "--reason",
               "late upstream")[0] == 0
    hdfs_backup(history)
    code, out, err = run(capsys, "entity-status", "clicks", "--repo", str(history.conf), "--now", NOW,
                         "--format", "json")
    assert code == 0, err
    answer = json.loads(out)
    assert (answer["kind"], answer["name"], answer["file"]) == ("feed", "clicks", "feeds/clicks.yaml")
    primary, backup = answer["clusters"]
    assert (primary["cluster"], primary["state"], primary["error"]) == ("primary", "SUSPENDED", None)
    assert primary["suspended"]["reason"] == "late upstream"
    assert (backup["cluster"], backup["state"]) == ("backup", "UNKNOWN")
    assert "is not a WebHDFS address" in backup["error"]

    code, out, err = run(capsys, "entity-status", PROCESS, "--kind", "process", "--repo", str(history.conf),
                         "--now", NOW)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"process {PROCESS} (processes/{PROCESS}.yaml), on 1 cluster(s)"
    assert lines[1].split() == ["CLUSTER", "STATE", "VALIDITY", "LAST", "INSTANCE", "DETAIL"]
    assert lines[2].split() == ["primary", "RUNNING", "2026-01-01T00:00Z..2099-12-31T00:00Z", "2026-11-21T08:00Z",
                                "WAITING", "-"]
    code, out, err = run(capsys, "entity-status", "clicks", "--repo", str(history.conf), "--cluster", "primary")
    assert code == 0 and "SUSPENDED" in out and "suspended since " in out and ": late upstream" in out


BAD_CALLS = [
    (["status", "--cluster", "primary", "--tags", "owner"], "--tags 'owner' is not key=value"),
    (["status", "--cluster", "primary", "--state", "paused"], "Unknown --state PAUSED: use RUNNING, SUSPENDED, "
                                                             "COMPLETED."),
    (["status", "--cluster", "primary", "--state", "submitted"], "Falcon's SUBMITTED has no counterpart"),
    (["status", "--cluster", "primary", "--kind", "cluster"], "Unknown --kind 'cluster'"),
    (["status", "--cluster", "primary", "--name", " "], "--name is empty"),
    (["status", "--cluster", "primary", "--process", PROCESS, "--tags", "owner=x"], "leave out --process"),
    (["status", "--cluster", "primary", "--from", "2026-11-21T00:00Z"], "--from and --to choose instances"),
    (["status", "--cluster", "mars"], "Unknown cluster 'mars'"),
    (["status", "--cluster", "backup"], "is not a WebHDFS address"),
    (["entity-status", "nope"], "No process or feed is named 'nope'"),
    (["entity-status", PROCESS], "names both a process and a feed"),
    (["entity-status", "daily-clicks-rollup", "--cluster", "backup"], "is not defined on cluster 'backup'"),
    (["entity-status", "clicks", "--cluster", "backup"], "is not a WebHDFS address"),
    (["entity-status", "clicks", "--format", "xml"], "Unknown --format 'xml'"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_CALLS, ids=[" ".join(a)[:50] for a, _ in BAD_CALLS])
def test_bad_calls_exit_2_with_one_sentence(capsys: pytest.CaptureFixture[str], site: Site, argv: list[str],
                                            message: str) -> None:
    hdfs_backup(site)
    code, out, err = run(capsys, *argv, "--repo", str(site.conf))
    assert code == 2, err
    assert out == ""
    assert err.startswith("toolkit: ") and len(err.strip().splitlines()) == 1, err
    assert message in err
