"""What `toolkit plan` says a change does beyond retention, on a file:// cluster: a data path moved, a validity
moved both ways, a replication target added (the backlog it names is what replication then copies), a process's
computation edited after published instances (named from the cluster's real ledger)."""

from __future__ import annotations

import json
import os
from datetime import timedelta

from tests.unit.change_plan.plan_site import CLICKS, NOW, edit, plan
from tests.unit.retention.retention_repo import hourly_instances, tree, utc
from toolkit.actions.replication.runner import ReplicationRequest, run_replication
from toolkit.core.entities.provenance import provenance
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.records import InstanceRecord, PublishedOutput, Written
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.runtime.run_context import RunContext

SUMMARY = "processes/hourly-clicks-summary.yaml"
BACKUP = """  - name: backup
    type: target
    validity:
      start: 2025-12-01T00:00Z
      end: 2099-12-31T00:00Z
    retention:
      limit: months(12)
      action: delete
    locations:
      data: /replica/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}
"""


def stamp(t) -> str:
    return f"{t:%Y-%m-%dT%H:%MZ}"


def test_a_moved_data_path_names_the_instances_left_under_the_old_one(site, capsys):
    head, base, root = site
    edit(head, CLICKS, "data: /data/clicks/${YEAR}", "data: /data/web-clicks/${YEAR}")
    before = tree(root)
    code, report, _ = plan(capsys, head, base)
    assert code == 1
    [change] = [c for c in report["changes"] if c["destructive"]]
    assert (change["entity"], change["cluster"], change["count"], change["read_storage"]) == (
        "clicks", "primary", 9, True)
    assert change["change"].startswith("location data /data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR} -> "
                                       "/data/web-clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}: 9 instance(s) left under "
                                       "the old path, unreachable")
    assert {item["path"] for item in change["instances"]} == {
        (root / "data/clicks" / f"{t:%Y/%m/%d/%H}").as_uri()
        for days in (100, 50, 5) for t in (NOW - timedelta(days=days) + timedelta(hours=k) for k in range(3))}
    assert tree(root) == before


def test_instances_moved_to_the_new_path_before_the_merge_are_not_lost(site, capsys):
    head, base, root = site
    (root / "data/clicks").rename(root / "data/web-clicks")  # the operator moved them first
    edit(head, CLICKS, "data: /data/clicks/${YEAR}", "data: /data/web-clicks/${YEAR}")
    code, report, _ = plan(capsys, head, base)
    [change] = [c for c in report["changes"] if c["change"].startswith("location")]
    assert (code, change["destructive"], change["count"]) == (0, False, 0)


def test_a_later_validity_start_names_the_published_instances_it_drops(site, capsys):
    head, base, _ = site
    edit(head, CLICKS, "start: 2025-12-01T00:00Z", "start: 2026-09-01T00:00Z")  # primary's entry comes first
    code, report, _ = plan(capsys, head, base)
    assert code == 0
    [change] = [c for c in report["changes"] if c["change"].startswith("validity")]
    assert (change["cluster"], change["warning"], change["count"], change["first"], change["last"]) == (
        "primary", True, 3, stamp(NOW - timedelta(days=100)), stamp(NOW - timedelta(days=100, hours=-2)))
    assert "3 published instance(s) now outside the validity" in change["change"]
    assert plan(capsys, head, base, "--strict")[0] == 1


def test_an_earlier_validity_start_is_a_backlog_of_the_hours_it_adds(site, capsys):
    head, base, _ = site
    edit(head, CLICKS, "start: 2025-12-01T00:00Z", "start: 2025-11-30T00:00Z")
    code, report, _ = plan(capsys, head, base)
    assert code == 0
    [change] = [c for c in report["changes"] if c["change"].startswith("validity")]
    assert (change["count"], change["first"], change["last"]) == (24, "2025-11-30T00:00Z", "2025-11-30T23:00Z")
    assert "24 instance(s) added before now" in change["change"]


def test_a_new_replication_target_names_the_backlog_replication_then_copies(site, capsys):
    head, base, root = site
    edit(base, CLICKS, BACKUP, "")
    (root.parent / "backup").mkdir()  # the target's root, empty
    code, report, _ = plan(capsys, head, base, "--cluster", "backup")
    assert code == 0
    [change] = [c for c in report["changes"] if c["change"].startswith("replicated")]
    assert (change["cluster"], change["warning"], change["count"]) == ("backup", True, 9)
    assert change["command"].endswith(f"--feed clicks --target backup --from {change['first']} --to {change['last']}")
    repo = ConfigRepo.load(head)
    for item in change["instances"]:
        t = utc(*map(int, item["time"][:13].replace("T", "-").split("-")))
        result = run_replication(repo, "clicks", "backup", ReplicationRequest(t, NOW),
                                 RunContext(LocalFileSystem(), run_id=f"r{t:%m%d%H}"))
        assert result.status == "SUCCEEDED"
    copied = sum(os.path.getsize(path) for path in (root.parent / "backup/replica/clicks").rglob("*")
                 if path.is_file())
    assert copied == change["bytes"] > 0
    code, report, _ = plan(capsys, head, base, "--cluster", "backup")
    [change] = [c for c in report["changes"] if c["change"].startswith("replicated")]
    assert (change["count"], change["warning"]) == (0, False)  # copied: no backlog left


def summary_ledger(head) -> Ledger:
    return Ledger.of(LocalFileSystem(), ConfigRepo.load(head).cluster("primary"))


def test_an_edited_workflow_names_the_instances_the_old_one_computed(site, capsys):
    head, base, root = site
    ledger = summary_ledger(head)
    times = [utc(2026, 11, 20, hour) for hour in range(12)]
    for k, t in enumerate(times):
        output = {"name": "summary", "feed": "clicks-hourly-summary", "time": stamp(t),
                  "path": f"file:///summary/{t:%H}", "files": 1, "bytes": 100 + k}
        ledger.write_instance(InstanceRecord(
            process="hourly-clicks-summary", cluster="primary", time=stamp(t),
            status="FAILED" if k >= 10 else "SUCCEEDED", attempts=1, run_id=f"r{k}", updated=stamp(t)[:-1] + ":30Z",
            outputs=Written(PublishedOutput, [output] if k < 10 else [])))
    workflow = head / "workflows" / "hourly_clicks_summary.py"
    workflow.write_text(workflow.read_text() + "\n# counted differently\n")
    code, report, _ = plan(capsys, head, base)
    assert code == 0
    [change] = [c for c in report["changes"] if c["kind"] == "process" and c["warning"]]
    assert (change["entity"], change["count"], change["bytes"], change["first"], change["last"]) == (
        "hourly-clicks-summary", 10, sum(range(100, 110)), stamp(times[0]), stamp(times[9]))
    assert change["change"].startswith("workflow file edited: 10 published instance(s) computed by another definition "
                                       "(10 by a definition the ledger did not record)")
    assert change["instances"][0]["path"] == "file:///summary/00"
    assert change["command"] == (f"toolkit rerun --repo {head} --process hourly-clicks-summary --cluster primary "
                                 f"--from {stamp(times[0])} --to {stamp(times[9])} --status SUCCEEDED")


def test_a_later_process_validity_end_names_nothing_and_an_earlier_one_the_runs_it_drops(site, capsys):
    head, base, _ = site
    ledger = summary_ledger(head)
    for hour in range(3):
        t = utc(2026, 11, 20, hour)
        ledger.write_instance(InstanceRecord(process="hourly-clicks-summary", cluster="primary", time=stamp(t),
                                             status="SUCCEEDED", attempts=1, run_id=f"r{hour}", updated=stamp(t)))
    edit(head, SUMMARY, "end: 2099-12-31T00:00Z", "end: 2026-11-20T01:00Z")
    code, report, _ = plan(capsys, head, base)
    [change] = [c for c in report["changes"] if c["kind"] == "process" and c["warning"]]
    assert (code, change["count"], change["first"], change["last"]) == (
        0, 2, "2026-11-20T01:00Z", "2026-11-20T02:00Z")
    assert "2 succeeded instance(s) now outside the validity" in change["change"]


def test_the_schedule_calls_a_change_adds_and_moves_are_listed_offline_too(site, capsys):
    head, base, _ = site
    edit(head, SUMMARY, "start: 2026-01-01T00:00Z", "start: 2026-01-01T06:00Z")
    (base / "processes/top-pages.yaml").unlink()
    for flags in ((), ("--offline",)):
        code, report, _ = plan(capsys, head, base, *flags)
        scheduled = [(c["entity"], c["change"]) for c in report["changes"] if "scheduled call" in c["change"]]
        assert code == 0
        moved = ("changed: cadence every hours(1) from 2026-01-01T00:00Z -> every hours(1) from 2026-01-01T06:00Z; "
                 "regenerate the schedule")
        assert scheduled == [
            ("hourly-clicks-summary", f"scheduled call late-check-hourly-clicks-summary {moved}"),
            ("hourly-clicks-summary", f"scheduled call process-hourly-clicks-summary {moved}"),
            ("top-pages", "scheduled call process-top-pages added (every days(1) from 2026-01-02T00:00Z: each "
             "instance: the process's frequency); regenerate the schedule")], flags
        [command] = {c["command"] for c in report["changes"] if "scheduled call" in c["change"]}
        assert command == f"toolkit schedule --repo {head} --cluster primary"


def test_a_quality_gate_added_or_its_suite_edited_names_the_producers_that_check_it(site, capsys):
    head, base, _ = site
    for repo, action in ((base, "block"), (head, "warn")):  # the site's repos have no gate: one is given here
        edit(repo, "feeds/clicks-hourly-summary.yaml", "\nclusters:", "\nquality: {suite: "
             f"quality/clicks-hourly-summary.json, on-failure: {action}}}\nclusters:")
    edit(head, CLICKS, "groups: [web]\n", "groups: [web]\nquality: {suite: quality/clicks.json, on-failure: block}\n")
    (head / "quality/clicks.json").write_text((head / "quality/clicks-hourly-summary.json").read_text())
    code, report, _ = plan(capsys, head, base, "--offline")
    gates = sorted((c["entity"], c["change"]) for c in report["changes"] if "quality gate" in c["change"])
    assert code == 0 and gates == [
        ("clicks", "quality gate quality/clicks.json added (block: an instance that fails it is not published): "
         "checked before publishing by replication into backup"),
        ("clicks-hourly-summary", "quality gate quality/clicks-hourly-summary.json (block) -> "
         "quality/clicks-hourly-summary.json (warn: a failure is reported, the instance published): checked before "
         "publishing by process hourly-clicks-summary")]
    edit(head, "feeds/clicks-hourly-summary.yaml", "on-failure: warn", "on-failure: block")
    suite = head / "quality/clicks-hourly-summary.json"
    suite.write_text(suite.read_text().replace("}", " }", 1))
    _, report, _ = plan(capsys, head, base, "--offline")
    assert ("clicks-hourly-summary", "quality gate quality/clicks-hourly-summary.json edited (its expectations "
            "changed): checked before publishing by process hourly-clicks-summary") in [
        (c["entity"], c["change"]) for c in report["changes"]]


def test_instances_the_new_definition_computed_already_are_not_named(site, capsys):
    """Each record says which definition computed it: after a rerun under the new one, nothing is left to name."""
    head, base, _ = site
    workflow = head / "workflows" / "hourly_clicks_summary.py"
    workflow.write_text(workflow.read_text() + "\n# counted differently\n")
    repos = {name: ConfigRepo.load(repo) for name, repo in (("base", base), ("head", head))}
    ran = {name: provenance(repo.process("hourly-clicks-summary"), repo.root, None)
           for name, repo in repos.items()}
    ledger = summary_ledger(head)
    for hour in range(4):
        t = utc(2026, 11, 20, hour)
        ledger.write_instance(InstanceRecord(process="hourly-clicks-summary", cluster="primary", time=stamp(t),
                                             status="SUCCEEDED", attempts=1, run_id=f"r{hour}", updated=stamp(t),
                                             definition=ran["head" if hour < 3 else "base"]))
    _, report, _ = plan(capsys, head, base)
    [change] = [c for c in report["changes"] if c["kind"] == "process" and c["warning"]]
    assert [item["time"] for item in change["instances"]] == ["2026-11-20T03:00Z"]
    assert "1 published instance(s) computed by another definition (nothing" in change["change"]
    ledger.write_instance(InstanceRecord(process="hourly-clicks-summary", cluster="primary", time="2026-11-20T03:00Z",
                                         status="SUCCEEDED", attempts=2, run_id="rerun", updated="2026-11-26T00:00Z",
                                         definition=ran["head"]))  # the rerun command's run
    _, report, _ = plan(capsys, head, base)
    assert not [c for c in report["changes"] if c["kind"] == "process" and c["warning"]]


def test_a_validity_end_that_lets_retention_run_again_loses_what_it_will_evict(site, capsys):
    """Retention stops at the validity end: moving the end past now restarts it, which the plan says like a limit
    change; so does the property that keeps it running beyond the end."""
    head, base, _ = site
    edit(base, CLICKS, "end: 2099-12-31T00:00Z", "end: 2026-11-01T00:00Z")  # primary's entry comes first
    code, report, _ = plan(capsys, head, base)
    [change] = [c for c in report["changes"] if c["destructive"]]
    assert (code, change["count"], change["first"]) == (1, 3, stamp(NOW - timedelta(days=100)))
    assert change["change"].startswith("retention days(90) (delete) -> days(90) (delete); validity "
                                       "2025-12-01T00:00Z..2026-11-01T00:00Z -> 2025-12-01T00:00Z..2099-12-31T00:00Z:")
    edit(head, CLICKS, "end: 2099-12-31T00:00Z", "end: 2026-11-01T00:00Z")
    edit(head, CLICKS, "groups: [web]\n", 'groups: [web]\nproperties:\n  retention.keep-instances-beyond-validity: '
         '"false"\n')
    code, report, _ = plan(capsys, head, base)
    [change] = [c for c in report["changes"] if c["destructive"]]
    assert (code, change["count"]) == (1, 3)
    assert "property retention.keep-instances-beyond-validity unset -> false" in change["change"]


def test_a_timezone_change_reads_every_folder_as_another_time(site, capsys):
    """Folder names are local times: in UTC+14 the hours right after the UTC cut-off are 14 hours earlier, before it."""
    head, base, root = site
    hourly_instances(root, NOW - timedelta(days=90) + timedelta(hours=1), 3)
    edit(head, CLICKS, "timezone: UTC", "timezone: Pacific/Kiritimati")
    code, report, _ = plan(capsys, head, base)
    [change] = [c for c in report["changes"] if c["destructive"]]
    assert (code, change["count"]) == (1, 3)
    assert "; timezone UTC -> Pacific/Kiritimati:" in change["change"]
    code, report, _ = plan(capsys, base, head)  # the other way: they are later than the cut-off again
    assert code == 0 and not [c for c in report["changes"] if c["destructive"]]


def test_a_moved_cluster_root_leaves_the_ledger_and_every_instance_behind(site, capsys):
    head, base, root = site
    cluster = head / "clusters/primary.yaml"
    cluster.write_text(cluster.read_text().replace(f"file://{root}", f"file://{root.parent / 'new-root'}"))
    (root.parent / "new-root").mkdir()
    code, report, _ = plan(capsys, head, base)
    lost = {(c["kind"], c["entity"]): c for c in report["changes"] if c["destructive"]}
    assert code == 1 and lost[("feed", "clicks")]["count"] == 9 and ("cluster", "primary") in lost
    assert lost[("feed", "clicks")]["change"].startswith(f"cluster root file://{root} -> ")


def test_a_root_missing_here_is_not_read_as_empty(site, capsys):
    """A CI runner without the cluster's mount: nothing found there is not nothing there."""
    head, base, root = site
    root.rename(root.parent / "elsewhere")
    edit(head, CLICKS, "limit: days(90)", "limit: days(7)")
    code, report, _ = plan(capsys, head, base)
    [change] = [c for c in report["changes"] if c["destructive"]]
    assert (code, change["read_storage"], change["count"]) == (1, False, 0)
    assert f"root file://{root} does not exist on this machine" in change["change"]


def test_an_earlier_start_whose_instances_are_there_is_no_backlog(site, capsys):
    head, base, root = site
    hourly_instances(root, utc(2025, 11, 30, 0), 24)
    edit(head, CLICKS, "start: 2025-12-01T00:00Z", "start: 2025-11-30T00:00Z")
    code, report, _ = plan(capsys, head, base)
    assert code == 0 and not [c for c in report["changes"] if c["change"].startswith("validity")]


def test_a_feed_renamed_with_the_same_path_orphans_nothing(site, capsys):
    head, base, _ = site
    text = (head / CLICKS).read_text().replace("name: clicks\n", "name: web-clicks\n")
    (head / CLICKS).unlink()
    (head / "feeds/web-clicks.yaml").write_text(text)
    summary = head / SUMMARY
    summary.write_text(summary.read_text().replace("feed: clicks\n", "feed: web-clicks\n"))
    code, report, _ = plan(capsys, head, base)
    [change] = [c for c in report["changes"] if c["change"].startswith("removed from the repo")]
    assert (code, change["destructive"], change["count"]) == (0, False, 0)
    [kept] = [c for c in report["changes"] if c["entity"] == "web-clicks" and c["change"].startswith("retention")]
    assert (kept["destructive"], kept["count"]) == (False, 0)  # clicks' retention evicted them as the new one will
    assert change["change"].endswith("; its data location is feed 'web-clicks''s now")


def test_a_moved_root_is_shown_without_a_password_in_its_url(site, capsys):
    head, base, root = site
    cluster = head / "clusters/primary.yaml"
    cluster.write_text(cluster.read_text().replace(f"file://{root}", "webhdfs://etl:Pw1-s3cr3t@nn:9870/lake"))
    code, report, err = plan(capsys, head, base)
    lost = {(c["kind"], c["entity"]): c for c in report["changes"] if c["destructive"]}
    assert lost[("cluster", "primary")]["change"].startswith(f"root file://{root} -> webhdfs://etl:***@nn:9870/lake: ")
    assert "Pw1-s3cr3t" not in json.dumps(report) + err
