"""The cluster's control switches in its ledger (safemode, suspended entities) and the check every action makes
before touching data: exit 5 in safemode, exit 4 for a suspended entity."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.ledger.ledger_support import local_cluster
from toolkit.core.entities.model import Cluster
from toolkit.core.ledger.control import Control, Switch
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.records import CorruptRecordError
from toolkit.core.ledger.switches import require_no_safemode, require_running_allowed
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import BlockedError, SkippedError

SINCE = "2026-11-21T10:00:00Z"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "primary"


@pytest.fixture
def cluster(tmp_path: Path, root: Path) -> Cluster:
    return local_cluster(tmp_path / "conf", root)


@pytest.fixture
def control(cluster: Cluster) -> Control:
    return Control(LocalFileSystem(), LedgerLayout.of(cluster))


def test_safemode_on_writes_the_switch_and_off_removes_it(control: Control, root: Path) -> None:
    switch = root / "feed-toolkit/working/ledger/control/safemode"
    assert control.safemode() == Switch(False)

    control.set_safemode(True, SINCE, "ops@host", "disk full")

    assert json.loads(switch.read_text()) == {"since": SINCE, "by": "ops@host", "reason": "disk full",
                                             "format_version": 1}
    assert control.safemode() == Switch(True, SINCE, "ops@host", "disk full")

    control.set_safemode(False, "2026-11-21T11:00:00Z", "ops@host")

    assert not switch.exists()
    assert control.safemode() == Switch(False)
    control.set_safemode(False, "2026-11-21T11:00:00Z", "ops@host")  # off twice: nothing to remove, no error


def test_suspension_is_per_kind_and_name(control: Control, root: Path) -> None:
    control.set_suspended("process", "hourly-clicks-summary", True, SINCE, "ops@host")

    switch = root / "feed-toolkit/working/ledger/control/suspended/process/hourly-clicks-summary"
    assert json.loads(switch.read_text()) == {"since": SINCE, "by": "ops@host", "reason": None, "format_version": 1}
    assert control.suspension("process", "hourly-clicks-summary") == Switch(True, SINCE, "ops@host", None)
    assert control.suspension("feed", "hourly-clicks-summary") == Switch(False)
    assert control.suspension("process", "daily-clicks-rollup") == Switch(False)

    control.set_suspended("process", "hourly-clicks-summary", False, SINCE, "ops@host")
    assert not switch.exists()


def test_a_switch_file_without_content_is_on(control: Control, root: Path) -> None:
    switch = root / "feed-toolkit/working/ledger/control/safemode"
    switch.parent.mkdir(parents=True)
    switch.write_text("")  # `touch safemode` by hand
    assert control.safemode() == Switch(True)


def test_a_damaged_switch_file_names_its_path(control: Control, root: Path) -> None:
    switch = root / "feed-toolkit/working/ledger/control/safemode"
    switch.parent.mkdir(parents=True)
    switch.write_text("on, please")
    with pytest.raises(CorruptRecordError) as raised:
        control.safemode()
    assert raised.value.path == control.layout.safemode()
    assert control.layout.safemode() in str(raised.value)



@pytest.mark.parametrize(("content", "problem"), [
    ('["on"]', "it is not a JSON object"),
    ('{"since": "monday", "by": "ops@host"}', "the field 'since' is 'monday', not a time yyyy-MM-ddTHH:mm:ssZ"),
    ('{"since": "2026-11-21T09:00:00Z", "by": 7}', "the field 'by' is 7, not a text"),
])
def test_a_switch_file_of_the_wrong_shape_is_refused_naming_the_field(control: Control, root: Path, content: str,
                                                                      problem: str) -> None:
    switch = root / "feed-toolkit/working/ledger/control/suspended/feed/clicks"
    switch.parent.mkdir(parents=True)
    switch.write_text(content)
    with pytest.raises(CorruptRecordError, match=problem):
        control.suspension("feed", "clicks")


def test_nothing_set_allows_running(cluster: Cluster) -> None:
    fs = LocalFileSystem()
    require_no_safemode(fs, cluster)
    require_running_allowed(fs, cluster, "process", "hourly-clicks-summary")


def test_safemode_blocks_with_exit_5(cluster: Cluster, control: Control) -> None:
    control.set_safemode(True, SINCE, "ops@host")

    with pytest.raises(BlockedError) as raised:
        require_running_allowed(LocalFileSystem(), cluster, "process", "hourly-clicks-summary")

    assert raised.value.exit_code == 5
    assert str(raised.value) == (f"Cluster 'primary' is in safemode (since {SINCE}): nothing runs there until "
                                 "`toolkit safemode off`.")
    with pytest.raises(BlockedError):
        require_no_safemode(LocalFileSystem(), cluster)


def test_a_suspended_entity_is_skipped_with_exit_4(cluster: Cluster, control: Control) -> None:
    control.set_suspended("process", "hourly-clicks-summary", True, SINCE, "ops@host")

    with pytest.raises(SkippedError) as raised:
        require_running_allowed(LocalFileSystem(), cluster, "process", "hourly-clicks-summary")

    assert raised.value.exit_code == 4
    message = str(raised.value)
    assert "The process 'hourly-clicks-summary' is suspended on cluster 'primary'" in message
    assert f"(since {SINCE})" in message
    assert "`toolkit resume hourly-clicks-summary`" in message
    # another entity, and the same name of another kind, still run
    require_running_allowed(LocalFileSystem(), cluster, "process", "daily-clicks-rollup")
    require_running_allowed(LocalFileSystem(), cluster, "feed", "hourly-clicks-summary")


def test_safemode_is_checked_before_suspension(cluster: Cluster, control: Control) -> None:
    control.set_suspended("process", "p", True, SINCE, "ops@host")
    control.set_safemode(True, SINCE, "ops@host")
    with pytest.raises(BlockedError):
        require_running_allowed(LocalFileSystem(), cluster, "process", "p")
