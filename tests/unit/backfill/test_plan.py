"""What a backfill runs and in which order (toolkit/orchestration/backfill/: selection, graph, plan), on the
pipeline of tests/unit/backfill/pipeline.py and the template repo, with ledgers written through the ledger's API."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.unit.backfill.pipeline import TEMPLATE, make_pipeline
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.locks import LeaseDetails
from toolkit.core.ledger.records import InstanceRecord, PublicationFacts
from toolkit.errors import UsageError
from toolkit.orchestration.backfill import graph as graph_module
from toolkit.orchestration.backfill.graph import build_graph
from toolkit.orchestration.backfill.plan import plan_backfill
from toolkit.orchestration.backfill.selection import selected_steps
from toolkit.orchestration.backfill.standing import Ledgers, Verdict
from toolkit.orchestration.backfill.steps import ProcessStep, ReplicationStep, entrypoint_call

H0 = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)
H1, H2 = H0 + timedelta(hours=1), H0 + timedelta(hours=2)
ONE, TWO, MID = ProcessStep("stage-one", "primary"), ProcessStep("stage-two", "primary"), \
    ReplicationStep("mid", "backup")


@pytest.fixture()
def repo(tmp_path: Path) -> ConfigRepo:
    conf, _, _ = make_pipeline(tmp_path, first_consumer=H1)
    return ConfigRepo.load(conf)


def test_downstream_reaches_the_readers_their_outputs_readers_and_the_replications(repo: ConfigRepo) -> None:
    assert selected_steps(repo, "primary", [], [], "raw") == [ONE, TWO, MID]
    assert selected_steps(repo, "primary", ["stage-two"], ["mid"], None) == [TWO, MID]
    template = ConfigRepo.load(TEMPLATE)
    assert selected_steps(template, "primary", [], [], "clicks") == [
        ProcessStep("hourly-clicks-summary", "primary"), ReplicationStep("clicks", "backup"),
        ProcessStep("daily-clicks-rollup", "primary"), ProcessStep("top-pages", "primary")]


@pytest.mark.parametrize(("processes", "feeds", "downstream", "says"), [
    ([], ["out"], None, "Feed 'out' is not replicated from cluster 'primary'"),
    ([], [], "out", "Nothing reads feed 'out' on cluster 'primary'"),
    ([], [], None, "Nothing to backfill"),
    (["nope"], [], None, "nope"),
])
def test_what_cannot_be_backfilled_is_one_sentence(repo: ConfigRepo, processes: list[str], feeds: list[str],
                                                   downstream: str | None, says: str) -> None:
    with pytest.raises(UsageError, match=says):
        selected_steps(repo, "primary", processes, feeds, downstream)


def test_each_instance_comes_after_the_instances_it_reads_oldest_first(repo: ConfigRepo) -> None:
    graph = build_graph(repo, [ONE, TWO, MID], H0, H2)
    assert [(node.step, node.time) for node in graph.order] == [
        (ONE, H0), (MID, H0), (ONE, H1), (TWO, H1), (MID, H1), (ONE, H2), (TWO, H2), (MID, H2)]
    after = {(node.step, node.time): {(wait.step, wait.time) for wait in waits} for node, waits in graph.after.items()}
    assert after[(TWO, H1)] == {(ONE, H0), (ONE, H1)}  # now(-1,0)..now(0,0) of mid
    assert after[(MID, H1)] == {(ONE, H1)}
    assert after[(ONE, H0)] == set()  # raw is nobody's in the backfill: the run itself checks it
    assert entrypoint_call(MID, repo, H1) == ("replication.py", ["--feed", "mid", "--target", "backup", "--from",
                                                                 "2026-11-21T11:00Z", "--to", "2026-11-21T11:00Z"])


def test_a_cycle_and_a_window_too_large_are_refused(repo: ConfigRepo, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UsageError, match="after --to"):
        build_graph(repo, [ONE], H1, H0)
    monkeypatch.setattr(graph_module, "MAX_INSTANCES", 2)
    with pytest.raises(UsageError, match="has 3 instances, more than 2: split the window"):
        build_graph(repo, [ONE], H0, H2)
    back = tmp_path / "conf" / "processes" / "stage-back.yaml"  # writes raw from mid: raw -> mid -> raw
    text = (tmp_path / "conf" / "processes" / "stage-one.yaml").read_text().replace("stage-one", "stage-back")
    back.write_text(text.replace("feed: raw", "feed: MID").replace("feed: mid", "feed: raw").replace("feed: MID",
                                                                                                     "feed: mid"))
    looped = ConfigRepo.load(tmp_path / "conf")
    with pytest.raises(UsageError, match="wait for each other in a cycle"):
        build_graph(looped, [ONE, ProcessStep("stage-back", "primary")], H0, H0)


def _publish(ledgers: Ledgers, feed: str, cluster: str, t: datetime, producer: str) -> None:
    ledgers.of(cluster).record_publication(PublicationFacts(feed, cluster, t, producer=producer, run_id=f"r-{cluster}",
                                                            location=f"/{feed}", fingerprint=Fingerprint("d", 1, 1)))


def test_the_plan_reads_the_ledgers_what_ran_is_done_what_failed_runs_again(repo: ConfigRepo) -> None:
    ledgers = Ledgers(repo, 60.0)
    primary = ledgers.of("primary")
    primary.write_instance(InstanceRecord(process="stage-one", cluster="primary", time="2026-11-21T10:00Z",
                                          status="SUCCEEDED", attempts=1, run_id="done-run",
                                          updated="2026-11-21T10:30:00Z", started="2026-11-21T10:20:00Z"))
    primary.write_instance(InstanceRecord(process="stage-one", cluster="primary", time="2026-11-21T11:00Z",
                                          status="FAILED", attempts=3, run_id="bad-run",
                                          updated="2026-11-21T11:30:00Z"))
    _publish(ledgers, "mid", "primary", H0, "process:stage-one")
    _publish(ledgers, "mid", "backup", H0, "replication:primary")
    assert primary.instance_lock("stage-one", H2).try_acquire("other-run", LeaseDetails()).taken
    plan = plan_backfill(build_graph(repo, [ONE, TWO, MID], H0, H2), ledgers, H0, H2)
    said = {(node.step, node.time): (standing.verdict, standing.why) for node, standing in plan.standings.items()}
    assert said[(ONE, H0)] == (Verdict.DONE, "succeeded already (run done-run, started 2026-11-21T10:20:00Z)")
    assert said[(MID, H0)][0] is Verdict.DONE and said[(MID, H0)][1].startswith("replicated already")
    assert said[(ONE, H1)] == (Verdict.RUN, "FAILED before, after 3 attempt(s): run again with its retry policy")
    assert said[(ONE, H2)][0] is Verdict.RUNNING and "other-run" in said[(ONE, H2)][1]
    assert said[(TWO, H1)] == (Verdict.RUN, "never ran")
    assert [(n.step, n.time) for n in plan.to_start()] == [(ONE, H1), (TWO, H1), (MID, H1), (ONE, H2), (TWO, H2),
                                                           (MID, H2)]
    document = plan.to_json(parallel=2)
    assert json.loads(json.dumps(document))["to_run"] == 6
    text = "\n".join(plan.text_lines(parallel=2))
    assert "process stage-one on primary: 1 to run, 1 done, 1 running now" in text
    assert "backfill plan: 6 of 8 instance(s) of 3 entities to run" in text


def test_a_copy_is_made_again_when_its_source_is_and_a_suspended_producer_holds_back_its_readers(
        repo: ConfigRepo) -> None:
    ledgers = Ledgers(repo, 60.0)
    primary = ledgers.of("primary")
    _publish(ledgers, "mid", "primary", H0, "process:stage-one")
    _publish(ledgers, "mid", "backup", H0, "replication:primary")
    plan = plan_backfill(build_graph(repo, [ONE, MID], H0, H0), ledgers, H0, H0)
    assert plan.standings[next(n for n in plan.graph.order if n.step == MID)].verdict is Verdict.RUN
    assert "made again by this backfill" in plan.standings[next(n for n in plan.graph.order if n.step == MID)].why
    primary.control.set_suspended("process", "stage-one", True, "2026-11-21T09:00:00Z", "ops")
    plan = plan_backfill(build_graph(repo, [ONE, TWO, MID], H0, H1), ledgers, H0, H1)
    said = {(node.step, node.time): (standing.verdict, standing.why) for node, standing in plan.standings.items()}
    assert said[(ONE, H1)] == (Verdict.SKIP, "the process is suspended on cluster 'primary' since "
                                             "2026-11-21T09:00:00Z")
    assert said[(TWO, H1)] == (Verdict.SKIP, "waits for process stage-one on primary 2026-11-21T10:00Z, which this "
                                             "backfill does not run")
    assert said[(MID, H0)][0] is Verdict.DONE  # its source is not made again
    assert plan.to_start() == []


def test_what_is_done_stays_done_when_its_entity_is_suspended_or_the_instance_held(repo: ConfigRepo) -> None:
    """Found by an attack: a succeeded instance of a suspended process read as not run, and held back its readers."""
    from toolkit.core.ledger.holds import Hold

    ledgers = Ledgers(repo, 60.0)
    primary = ledgers.of("primary")
    for t in (H0, H1):
        primary.write_instance(InstanceRecord(process="stage-one", cluster="primary", time=f"{t:%Y-%m-%dT%H:%MZ}",
                                              status="SUCCEEDED", attempts=1, run_id="done-run",
                                              updated="2026-11-21T12:00:00Z", started="2026-11-21T11:59:00Z"))
        _publish(ledgers, "mid", "primary", t, "process:stage-one")
    _publish(ledgers, "mid", "backup", H0, "replication:primary")
    primary.control.set_suspended("process", "stage-one", True, "2026-11-21T13:00:00Z", "ops")
    primary.set_hold("stage-one", H1, Hold(since="2026-11-21T13:00:00Z", by="ops"))
    ledgers.of("backup").control.set_suspended("feed", "mid", True, "2026-11-21T13:00:00Z", "ops")
    plan = plan_backfill(build_graph(repo, [ONE, TWO, MID], H0, H1), ledgers, H0, H1)
    said = {(node.step, node.time): standing.verdict for node, standing in plan.standings.items()}
    assert said == {(ONE, H0): Verdict.DONE, (ONE, H1): Verdict.DONE, (MID, H0): Verdict.DONE,
                    (MID, H1): Verdict.SKIP, (TWO, H1): Verdict.RUN}


def test_why_a_run_ended_is_read_from_its_record(repo: ConfigRepo) -> None:
    """Found by an attack: a failed run's reason was empty (its status line has none; its record has it)."""
    from toolkit.core.ledger.replication_runs import ReplicationRecord, SourceCopy
    from toolkit.orchestration.backfill.standing import why_it_ended
    from toolkit.services.runtime.run_record import record_path, write_record

    ledgers = Ledgers(repo, 60.0)
    ledgers.of("primary").write_instance(InstanceRecord(
        process="stage-one", cluster="primary", time="2026-11-21T10:00Z", status="FAILED", attempts=1, run_id="r",
        updated="2026-11-21T12:00:00Z", error="The workflow workflows/copy_rows.py failed: RuntimeError: boom"))
    assert why_it_ended(ONE, ledgers, H0) == "The workflow workflows/copy_rows.py failed: RuntimeError: boom"
    backup = ledgers.of("backup")
    write_record(backup.fs, record_path(repo.cluster("backup"), "replication", "mid", H0), ReplicationRecord(
        "mid", "backup", "2026-11-21T10:00Z", "r", status="FAILED",
        sources=[SourceCopy("primary", "FAILED", "the instance was not available on 'primary'")]))
    assert why_it_ended(MID, ledgers, H0) == "primary: the instance was not available on 'primary'"
    assert why_it_ended(MID, ledgers, H1) is None and why_it_ended(ONE, ledgers, H1) is None
