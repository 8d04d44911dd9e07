"""OpenLineage events of retention (the template's `clicks` on primary, on the local file system): one run per
call, no inputs, the feed's dataset as output with every instance evicted in its subset and the lifecycle
change DROP; a dry run emits nothing. The cost of a retention that evicts thousands stays small."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from pathlib import Path

from tests.integration.openlineage.lineage_setup import instances, lineage_to, names, valid_events
from tests.lineage_receiver import lineage_receiver
from tests.unit.retention.retention_repo import hourly_instances, make_repo, utc
from toolkit.actions.retention.runner import run_retention
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.openlineage.events import COMPLETE, run_event
from toolkit.services.openlineage.facts import DatasetUse, RunFacts
from toolkit.services.openlineage.naming import job_name
from toolkit.services.runtime.run_context import RunContext

FIRST, NOW = utc(2025, 12, 31, 20), utc(2026, 3, 31, 22)  # 90 days: 20:00 and 21:00 of Dec 31st go


def test_a_retention_emits_its_evicted_instances_as_a_dropped_subset(tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    hourly_instances(root, FIRST, 4)
    config = ConfigRepo.load(repo)
    with lineage_receiver() as receiver:
        lineage = lineage_to(receiver.url, repo, "ret1")
        dry = run_retention(config, "clicks", "primary", NOW,
                            RunContext(LocalFileSystem(), lineage=lineage), dry_run=True)
        assert (dry.status, len(dry.evicted)) == ("DRY_RUN", 2)
        assert receiver.events == []  # a dry run emits nothing
        result = run_retention(config, "clicks", "primary", NOW,
                               RunContext(LocalFileSystem(), run_id="ret1", lineage=lineage))
        assert len(result.evicted) == 2
    events = valid_events(receiver)
    assert [(e["eventType"], e["job"]["namespace"], e["job"]["name"]) for e in events] == [
        ("START", "feed-toolkit.primary", "retention.clicks"), ("COMPLETE", "feed-toolkit.primary", "retention.clicks")]
    complete = events[1]
    assert complete["run"]["facets"]["nominalTime"]["nominalStartTime"] == "2026-03-31T22:00:00.000Z"
    assert complete["inputs"] == []
    [dropped] = complete["outputs"]
    assert names([dropped]) == [("file", f"{root}/data/clicks")]
    assert dropped["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "DROP"
    gone = [f"file://{root}/data/clicks/2025/12/31/{hour}" for hour in (20, 21)]
    assert dropped["outputFacets"]["subset"]["outputCondition"] == {"type": "location", "locations": gone}
    assert instances(dropped) == [{"time": f"2025-12-31T{hour}:00Z", "location": location}
                                  for hour, location in zip((20, 21), gone, strict=True)]
    assert "outputStatistics" not in dropped["outputFacets"]  # nothing written


def test_ten_thousand_evicted_instances_make_one_event_of_their_locations_and_times(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path)
    config = ConfigRepo.load(repo)
    feed, cluster = config.feed("clicks"), config.cluster("primary")
    DatasetUse.at(feed, cluster, [FIRST])  # the client's modules loaded: the rest is the cost of the instances
    began = time.perf_counter()
    use = DatasetUse.at(feed, cluster, [FIRST - timedelta(hours=k) for k in range(10_000)], dropped=True)
    facts = RunFacts(job_name("feed-toolkit.primary", "retention", "clicks"), "0191a2b3-c4d5-7e6f-8a9b-0c1d2e3f4a5b",
                     "ret1", "retention", "clicks", "primary")
    text = json.dumps(run_event(facts, COMPLETE, NOW, [], [use]))
    assert time.perf_counter() - began < 5  # about 0.5 s on a laptop
    location = len(use.instances[0].location)
    assert len(text) < 10_000 * (2 * location + 60)  # an instance is its location twice and its time once
