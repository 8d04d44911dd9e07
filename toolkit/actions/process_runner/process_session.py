"""The session process.py and late_check.py open on a cluster: Hive support when the process reads or writes a
table, or its engine asks for it; the process's YARN queue and priority."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.core.entities.launcher_settings import launcher_confs
from toolkit.core.entities.model import Cluster, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.extensions.workflow_engines.registry import engine_of
from toolkit.services.runtime.action_session import action_session

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from toolkit.services.runtime.action_session import ActionSession
    from toolkit.services.runtime.status import StatusLine


def needs_hive(repo: ConfigRepo, process: Process, cluster: Cluster) -> bool:
    return engine_of(process).hive or any(
        repo.feed(item.feed).table_on(cluster.name) is not None for item in (*process.inputs, *process.outputs))


def process_session(repo: ConfigRepo, process: Process, cluster: Cluster, action: str,
                    status: StatusLine) -> AbstractContextManager[ActionSession]:
    """The session `toolkit-<action>-<process>-<cluster>`; outputs are replaced by deletes, never the root."""
    return action_session(action, process.name, cluster, status, hive=needs_hive(repo, process, cluster),
                          launcher=launcher_confs(process))
