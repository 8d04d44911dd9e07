"""What an ActionSession does when it ends, whatever happened: the status line counts the lineage events not sent
(only when lineage is on) and the messages of the notifiers it counts, then the catalog it connected is closed.
(The Spark side is tested through spark-submit in tests/integration; here the session holds the local file
system.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.ledger.ledger_support import local_cluster
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.runtime.action_session import ActionSession
from toolkit.services.runtime.status import StatusLine


class _Catalog:
    closed = False

    def close(self) -> None:
        self.closed = True


def _session(tmp_path: Path) -> ActionSession:
    cluster = local_cluster(tmp_path / "conf", tmp_path / "root")
    return ActionSession(None, LocalFileSystem(), cluster, StatusLine(action="retention", run_id="r1"))  # type: ignore[arg-type]


def test_the_counted_notifiers_messages_are_in_the_status_line_and_the_catalog_is_closed(tmp_path: Path) -> None:
    session = _session(tmp_path)
    counted, other = session.notifier(counted=True), session.notifier(counted=False)
    counted.sent, other.sent = 2, 5
    catalog = _Catalog()
    session._catalog = catalog  # type: ignore[assignment]  # as catalog() would have connected it
    assert session.lineage() is session.lineage()  # opened once
    session.close()
    assert session.status.document() == {"status": "INVALID", "action": "retention", "entity": None, "time": None,
                                          "run_id": "r1", "notifications_sent": 2, "notifications_failed": 0}
    assert catalog.closed  # lineage is off here: no lineage_unsent


def test_the_catalog_is_closed_even_when_counting_fails(tmp_path: Path) -> None:
    session = _session(tmp_path)
    broken = session.notifier(counted=True)
    broken.counters = lambda: {"status": 1}  # type: ignore[method-assign]  # a typed name: refused by add
    catalog = _Catalog()
    session._catalog = catalog  # type: ignore[assignment]
    with pytest.raises(TypeError):
        session.close()
    assert catalog.closed


def test_every_sessions_file_system_refuses_to_delete_the_cluster_root(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """What README's data safety promises for every entrypoint: the session's file system (here the local one in
    place of Hadoop's, the Spark session left out) protects the cluster's root and every folder above it."""
    import toolkit.core.storage.hadoop
    from toolkit.core.storage.filesystem import StorageError
    from toolkit.services.runtime import action_session as module

    cluster = local_cluster(tmp_path / "conf", tmp_path / "root")
    (tmp_path / "root" / "data").mkdir(parents=True)
    monkeypatch.setattr(module, "build_session", lambda *args, **kwargs: None)
    monkeypatch.setattr(toolkit.core.storage.hadoop, "HadoopFileSystem", lambda spark: LocalFileSystem())
    status = StatusLine(action="ingest", run_id="r1")
    with module.action_session("ingest", "clicks", cluster, status, hive=False, launcher={}) as session:
        for path in (f"file://{tmp_path}/root", f"file://{tmp_path}/root/", f"file://{tmp_path}"):
            with pytest.raises(StorageError, match="toolkit refuses to delete"):
                session.fs.delete(path, recursive=True)
        assert session.fs.delete(f"file://{tmp_path}/root/data", recursive=True)  # below the root: allowed
    assert (tmp_path / "root").is_dir() and not (tmp_path / "root" / "data").exists()
