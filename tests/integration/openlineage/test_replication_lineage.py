"""OpenLineage events of file replication (the template's `clicks` from primary into backup, on the local file
system): one run per instance in the target's job namespace, the feed's dataset on the source as input (the
instance with the fingerprint the source's event recorded), the feed's dataset on the target as output (the
instance as published, what was copied); a source timed out is a FAIL; a source only waited for emits nothing."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from tests.integration.openlineage.lineage_setup import instances, lineage_to, names, valid_events
from tests.lineage_receiver import lineage_receiver
from tests.unit.replication.test_file_replication import FILES, T, instance
from tests.unit.retention.retention_repo import make_repo
from toolkit.actions.replication.runner import ReplicationRequest, run_replication
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.records import PublicationFacts
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.runtime.run_context import RunContext

FINGERPRINT = Fingerprint("d1", 3, 1517)


def test_a_replicated_instance_emits_start_and_complete_from_source_to_target(tmp_path: Path) -> None:
    repo, primary = make_repo(tmp_path)
    config, fs = ConfigRepo.load(repo), LocalFileSystem()
    source = instance(primary, "data/clicks", T, FILES)
    Ledger.of(fs, config.cluster("primary")).record_publication(PublicationFacts("clicks", "primary", T,
                                                                                 producer="external", run_id="x",
                                                                                 location=f"file://{source}",
                                                                                 fingerprint=FINGERPRINT))
    later = T + timedelta(hours=1)
    with lineage_receiver() as receiver:
        lineage = lineage_to(receiver.url, repo, "r1", cluster="backup")
        assert run_replication(config, "clicks", "backup", ReplicationRequest(T, T),
                               RunContext(fs, run_id="r1", lineage=lineage)).status == "SUCCEEDED"
        assert run_replication(config, "clicks", "backup", ReplicationRequest(later, later),  # not there yet:
                               RunContext(fs, run_id="r1", lineage=lineage)).status == "WAITING"  # nothing emitted
        assert run_replication(config, "clicks", "backup", ReplicationRequest(later, later + timedelta(days=1)),
                               RunContext(fs, run_id="r1", lineage=lineage)).status == "FAILED"
        unsent = lineage.close()
    assert unsent == 0  # the status line's lineage_unsent
    events = valid_events(receiver)
    assert [e["eventType"] for e in events] == ["START", "COMPLETE", "START", "FAIL"]
    assert {(e["job"]["namespace"], e["job"]["name"]) for e in events} == {("feed-toolkit.backup",
                                                                           "replication.clicks")}
    start, complete, _, failed = events
    assert start["run"]["runId"] == complete["run"]["runId"] != failed["run"]["runId"]
    assert complete["run"]["facets"]["nominalTime"]["nominalStartTime"] == "2026-11-21T10:00:00.000Z"
    assert complete["run"]["facets"]["feedToolkit_run"]["instance"] == "2026-11-21T10:00Z"
    assert names(complete["inputs"]) == [("file", f"{primary}/data/clicks")]
    assert instances(complete["inputs"][0], "inputFacets") == [
        {"time": "2026-11-21T10:00Z", "location": f"file://{source}", "fingerprint": FINGERPRINT.to_json()}]
    target = tmp_path / "backup/replica/clicks/2026/11/21/10"
    [written] = complete["outputs"]
    assert names([written]) == [("file", f"{tmp_path}/backup/replica/clicks")]
    assert written["outputFacets"]["subset"]["outputCondition"] == {"type": "location",
                                                                    "locations": [f"file://{target}"]}
    [event] = Ledger.of(fs, config.cluster("backup")).events("clicks", T)
    assert instances(written) == [{"time": "2026-11-21T10:00Z", "location": f"file://{target}",
                                   "fingerprint": event.fingerprint.to_json()}]
    statistics = written["outputFacets"]["outputStatistics"]
    assert (statistics["fileCount"], statistics["size"]) == (3, sum(len(data) for data in FILES.values()))
    assert "was not available on 'primary' by 2026-11-21T17:00Z" in \
        failed["run"]["facets"]["errorMessage"]["message"]
    assert (failed["inputs"], failed["outputs"]) == ([], [])
