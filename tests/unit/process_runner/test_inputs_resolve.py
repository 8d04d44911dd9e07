"""A process instance's inputs resolved against the local file system: fixed windows probed once, and
`latest(n)` windows picked among the instances that exist, probed in chunks backwards from the nominal time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

import pytest

from tests.unit.process_runner.runner_repo import RunnerRepo, utc, write_file
from toolkit.core.instances.availability import InstanceState, probe_files
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.grids import feed_grid
from toolkit.core.instances.inputs import PROBE_CHUNK, ResolvedInput, resolve_input
from toolkit.core.storage.local import LocalFileSystem

T = utc(2026, 11, 21, 10)


class CountingProbe:
    """probe_files on the local file system, noting the times of each call."""

    def __init__(self, runner_repo: RunnerRepo, feed: str) -> None:
        self.feed = runner_repo.repo.feed(feed)
        self.where = feed_locations(self.feed, runner_repo.repo.cluster("primary"))
        self.calls: list[list[datetime]] = []

    def __call__(self, times: Sequence[datetime]) -> Mapping[datetime, InstanceState]:
        self.calls.append(list(times))
        return probe_files(LocalFileSystem(), self.where, self.feed.availability_flag, times)


def resolve(runner_repo: RunnerRepo, input_name: str, nominal: datetime = T) -> tuple[ResolvedInput, CountingProbe]:
    item = next(i for i in runner_repo.repo.process("latest-clicks").inputs if i.name == input_name)
    probe = CountingProbe(runner_repo, item.feed)
    resolved = resolve_input(item, probe.feed, probe.where, feed_grid(probe.feed, "primary"), nominal, probe)
    return resolved, probe


def clicks_instance(runner_repo: RunnerRepo, t: datetime, flag: bool = True) -> None:
    folder = runner_repo.root / f"data/clicks/{t:%Y/%m/%d/%H}"
    write_file(folder / "part-0", "click\n")
    if flag:
        write_file(folder / "_SUCCESS")


@pytest.fixture
def some_clicks(runner_repo: RunnerRepo) -> RunnerRepo:
    for hour in (5, 6):
        clicks_instance(runner_repo, utc(2026, 11, 21, hour))
    clicks_instance(runner_repo, utc(2026, 11, 21, 7), flag=False)  # still being written
    clicks_instance(runner_repo, utc(2026, 11, 21, 11))  # after the nominal time
    return runner_repo


def test_latest_picks_the_newest_available_instance_at_or_before_the_nominal_time(some_clicks: RunnerRepo) -> None:
    resolved, probe = resolve(some_clicks, "newest")

    assert [state.time for state in resolved.checked_states] == [utc(2026, 11, 21, 6)]
    state = resolved.checked_states[0]
    assert state.available is True and state.location == some_clicks.uri("data/clicks/2026/11/21/06")
    assert resolved.missing == () and resolved.unresolved is None
    # one chunk, the PROBE_CHUNK instances up to the nominal time
    assert len(probe.calls) == 1
    assert probe.calls[0] == [T - timedelta(hours=k) for k in reversed(range(PROBE_CHUNK))]


def test_latest_minus_one_is_the_one_before(some_clicks: RunnerRepo) -> None:
    resolved, _ = resolve(some_clicks, "before")
    assert [state.time for state in resolved.checked_states] == [utc(2026, 11, 21, 5)]
    assert resolved.to_json(with_fingerprints=False) == {
        "name": "before", "feed": "clicks", "optional": False,
        "instances": [{"time": "2026-11-21T05:00Z", "location": some_clicks.uri("data/clicks/2026/11/21/05"),
                       "available": True}],
    }


def test_latest_looks_further_back_chunk_by_chunk(runner_repo: RunnerRepo) -> None:
    old = T - timedelta(hours=PROBE_CHUNK + 30)
    clicks_instance(runner_repo, old)

    resolved, probe = resolve(runner_repo, "newest")

    assert [state.time for state in resolved.checked_states] == [old]
    assert len(probe.calls) == 2
    assert probe.calls[1][-1] == probe.calls[0][0] - timedelta(hours=1)  # the chunk just before the first
    assert len(probe.calls[1]) == PROBE_CHUNK


def test_latest_of_a_feed_with_nothing_available_is_unresolved_and_missing(runner_repo: RunnerRepo) -> None:
    (runner_repo.root / "data/raw-events/2026/11/22/00").mkdir(parents=True)  # only after the nominal time

    resolved, probe = resolve(runner_repo, "raw")

    assert resolved.checked_states == ()
    assert resolved.describe_missing() == [
        "raw-events latest(0)..latest(0): not enough instances exist (looked back 960 and ahead 384 instances "
        "from 2026-11-21T10:00Z)"]
    # probed back to the feed's first instance (2026-11-20T00:00Z), each instance once
    probed = [t for call in probe.calls for t in call]
    assert sorted(probed) == [utc(2026, 11, 20) + timedelta(hours=k) for k in range(35)]
    assert len(set(probed)) == len(probed)


def test_a_fixed_window_is_probed_once(some_clicks: RunnerRepo) -> None:
    clicks_instance(some_clicks, utc(2026, 11, 21, 9))

    resolved, probe = resolve(some_clicks, "trailing")

    window = [utc(2026, 11, 21, h) for h in (8, 9, 10)]
    assert probe.calls == [window]
    states = resolved.checked_states
    assert [(s.time, s.available) for s in states] == list(zip(window, [False, True, False], strict=True))
    assert [s.time for s in resolved.missing] == [utc(2026, 11, 21, 8), utc(2026, 11, 21, 10)]
    assert resolved.describe_missing() == [
        f"clicks 2026-11-21T08:00Z ({some_clicks.uri('data/clicks/2026/11/21/08')})",
        f"clicks 2026-11-21T10:00Z ({some_clicks.uri('data/clicks/2026/11/21/10')})",
    ]
    fingerprinted = resolved.to_json()["instances"]
    assert isinstance(fingerprinted, list)
    assert [("fingerprint" in item) for item in fingerprinted] == [False, True, False]
    assert fingerprinted[1]["fingerprint"]["files"] == 1 and fingerprinted[1]["fingerprint"]["bytes"] == 6
