"""`toolkit triage` (Falcon's `instance -triage`): from an instance up to the first failed, waiting or missing
instances, each with why, read from a local cluster's ledger and file system (issue 37)."""

from __future__ import annotations

import json

import pytest

from tests.unit.cli.ledger_site import NOW, PROCESS, Site, at, record, run
from toolkit.core.ledger.records import PublicationFacts

SUMMARY = "clicks-hourly-summary"


def triage(capsys: pytest.CaptureFixture[str], site: Site, *argv: str) -> dict[str, object]:
    code, out, err = run(capsys, "triage", "--repo", str(site.conf), "--now", NOW, "--format", "json", *argv)
    assert code == 0, err
    answer: dict[str, object] = json.loads(out)
    return answer


def by_key(answer: dict[str, object]) -> dict[str, dict[str, object]]:
    return {f"{node['kind']} {node['name']} {node['time']}": node for node in answer["instances"]}  # type: ignore[attr-defined]


def test_a_missing_output_leads_through_its_producer_to_the_outside_input_it_waits_for(
        capsys: pytest.CaptureFixture[str], history: Site) -> None:
    answer = triage(capsys, history, "--feed", SUMMARY, "--time", "2026-11-21T09:00Z")
    assert answer["instance"] == f"feed {SUMMARY} 2026-11-21T09:00Z" and answer["truncated"] is False
    nodes = by_key(answer)
    assert list(nodes) == [f"feed {SUMMARY} 2026-11-21T09:00Z", f"process {PROCESS} 2026-11-21T09:00Z",
                           "feed clicks 2026-11-21T09:00Z"]  # clicks 07 and 08 are available: not walked
    start, producer, clicks = nodes.values()
    assert (start["status"], start["why"]) == ("MISSING", f"no folder; written by process {PROCESS} 2026-11-21T09:00Z")
    assert (producer["status"], producer["why"]) == ("NOT_RUN", "no run recorded; 1 required input instance(s) missing")
    assert clicks["status"] == "MISSING" and str(clicks["why"]).startswith(
        "its folder is there without _SUCCESS; no process of the repo writes it on cluster 'primary'")
    assert clicks["location"] == history.clicks_uri(9)
    assert answer["causes"] == ["feed clicks 2026-11-21T09:00Z"]

    code, out, _ = run(capsys, "triage", "--repo", str(history.conf), "--now", NOW, "--feed", SUMMARY, "--time",
                       "2026-11-21T09:00Z")
    lines = out.splitlines()
    assert lines[0] == f"feed {SUMMARY} 2026-11-21T09:00Z on cluster primary: MISSING; 1 cause(s):"
    assert lines[1].startswith(f"  feed clicks 2026-11-21T09:00Z: MISSING at {history.clicks_uri(9)}: its folder")
    assert lines[2] == "walked:"
    assert [line.strip().split("  ")[0] for line in lines[3:]] == [
        f"feed {SUMMARY} 2026-11-21T09:00Z", f"process {PROCESS} 2026-11-21T09:00Z", "feed clicks 2026-11-21T09:00Z"]
    assert [len(line) - len(line.lstrip()) for line in lines[3:]] == [2, 4, 6]


def test_a_failed_run_whose_inputs_are_there_is_the_cause(capsys: pytest.CaptureFixture[str], history: Site) -> None:
    for hour in (2, 3, 4):
        history.clicks(hour)
    answer = triage(capsys, history, "--process", PROCESS, "--time", "2026-11-21T04:00Z")
    assert answer["causes"] == [f"process {PROCESS} 2026-11-21T04:00Z"]
    node = by_key(answer)[f"process {PROCESS} 2026-11-21T04:00Z"]
    assert (node["status"], node["why"]) == ("FAILED",
                                             "failed: the workflow failed: boom; its inputs are all available")
    assert node["upstream"] == []


def test_a_dead_run_and_a_suspended_process_say_so(capsys: pytest.CaptureFixture[str], history: Site) -> None:
    for hour in (4, 5, 6):
        history.clicks(hour)
    assert run(capsys, "suspend", PROCESS, "--kind", "process", "--repo", str(history.conf), "--cluster", "primary",
               "--reason", "bad data")[0] == 0
    node = by_key(triage(capsys, history, "--process", PROCESS, "--time", "2026-11-21T06:00Z"))[
        f"process {PROCESS} 2026-11-21T06:00Z"]
    assert node["status"] == "KILLED"
    assert str(node["why"]).startswith("its run run-06 died (its lease expired without a result); its inputs are all "
                                       "available; the process is suspended on cluster 'primary' since ")
    assert str(node["why"]).endswith(" (bad data)")


def test_an_instance_toolkit_kill_ended_says_by_whom(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    for hour in (7, 8, 9):
        site.clicks(hour)
    killed = "The run was killed by op@host at 2026-11-21T09:10:00Z: wrong input; it publishes nothing."
    site.ledger().write_instance(record(9, "KILLED", error=killed))
    node = by_key(triage(capsys, site, "--process", PROCESS, "--time", "2026-11-21T09:00Z"))[
        f"process {PROCESS} 2026-11-21T09:00Z"]
    assert (node["status"], node["why"]) == ("KILLED", f"killed: {killed[:-1]}; its inputs are all available")


def test_a_succeeded_instance_has_nothing_to_triage(capsys: pytest.CaptureFixture[str], history: Site) -> None:
    answer = triage(capsys, history, "--process", PROCESS, "--time", "2026-11-21T03:00Z")
    assert answer["causes"] == [] and len(answer["instances"]) == 1  # type: ignore[arg-type]
    code, out, _ = run(capsys, "triage", "--repo", str(history.conf), "--now", NOW, "--process", PROCESS, "--time",
                       "2026-11-21T03:00Z")
    assert out == f"process {PROCESS} 2026-11-21T03:00Z on cluster primary: SUCCEEDED (run run-03): nothing to " \
                  "triage\n"


def test_an_evicted_instance_says_by_whom(capsys: pytest.CaptureFixture[str], history: Site) -> None:
    ledger = history.ledger()
    ledger.record_publication(PublicationFacts("clicks", "primary", at(1), producer="publish", run_id="run-p",
                                               location=history.clicks_uri(1), fingerprint=None))
    ledger.record_evictions("clicks", "primary", [(at(1), history.clicks_uri(1))], producer="retention",
                            run_id="run-r")
    node = by_key(triage(capsys, history, "--feed", "clicks", "--cluster", "primary", "--time",
                         "2026-11-21T01:00Z"))["feed clicks 2026-11-21T01:00Z"]
    assert node["status"] == "MISSING" and str(node["why"]).startswith("evicted by retention at 20")


def test_a_replica_names_its_source_cluster(capsys: pytest.CaptureFixture[str], history: Site) -> None:
    answer = triage(capsys, history, "--feed", "clicks", "--cluster", "backup", "--time", "2026-11-21T03:00Z")
    assert answer["cluster"] == "backup" and answer["causes"] == ["feed clicks 2026-11-21T03:00Z"]
    assert "replication.py copies it here from primary: triage it there (--cluster primary)" in str(
        by_key(answer)["feed clicks 2026-11-21T03:00Z"]["why"])


def test_a_future_instance_is_not_due(capsys: pytest.CaptureFixture[str], history: Site) -> None:
    node = by_key(triage(capsys, history, "--process", PROCESS, "--time", "2026-11-21T12:00Z"))[
        f"process {PROCESS} 2026-11-21T12:00Z"]
    assert node["status"] == "NOT_DUE" and str(node["why"]).startswith(
        "its time has not come (now is 2026-11-21T10:30Z); 3 required input instance(s) missing")


BAD_CALLS = [
    (["triage", "--time", "2026-11-21T09:00Z"], "Give either --feed F or --process P"),
    (["triage", "--feed", "clicks", "--process", PROCESS, "--time", "2026-11-21T09:00Z"], "Give either --feed"),
    (["triage", "--process", PROCESS], "Give --time T, the time (yyyy-MM-ddTHH:mmZ) of the process instance"),
    (["triage", "--process", PROCESS, "--time", "2026-11-21T09:30Z"],
     f"--time 2026-11-21T09:30Z is no instance of process '{PROCESS}' on cluster 'primary'; the one before is "
     "2026-11-21T09:00Z."),
    (["triage", "--process", PROCESS, "--time", "yesterday"], "--time"),
    (["triage", "--feed", "clicks", "--time", "2026-11-21T09:00Z"], "Give --cluster: the feed 'clicks' is on "
                                                                    "clusters primary, backup."),
    (["triage", "--feed", "nope", "--time", "2026-11-21T09:00Z"], "Unknown feed 'nope'"),
    (["triage", "--process", PROCESS, "--cluster", "backup", "--time", "2026-11-21T09:00Z"],
     "is not defined on cluster 'backup'"),
    (["triage", "--process", PROCESS, "--time", "2026-11-21T09:00Z", "--format", "xml"], "Unknown --format 'xml'"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_CALLS, ids=[" ".join(a)[:50] for a, _ in BAD_CALLS])
def test_bad_calls_exit_2_with_one_sentence(capsys: pytest.CaptureFixture[str], site: Site, argv: list[str],
                                            message: str) -> None:
    code, out, err = run(capsys, *argv, "--repo", str(site.conf))
    assert code == 2, err
    assert out == ""
    assert err.startswith("toolkit: ") and len(err.strip().splitlines()) == 1, err
    assert message in err
