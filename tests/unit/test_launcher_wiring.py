"""Every action runs in its entity's YARN queue and priority: every session is opened through
`toolkit/services/runtime/action_session.py`, and each call of it in the toolkit passes the entity's launcher settings
(the integration tests read them from the sessions of retention, replication and late_check; this keeps the other
actions, and new ones, from opening a session without them)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "toolkit"


def _calls(name: str) -> list[tuple[str, int, ast.expr | None]]:
    """Each call of the function `name` in the toolkit: its module, its line and its `launcher` argument."""
    calls = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == name:
                launcher = {keyword.arg: keyword.value for keyword in node.keywords}.get("launcher")
                calls.append((str(path.relative_to(PACKAGE)), node.lineno, launcher))
    return calls


def test_only_the_action_session_builds_a_spark_session() -> None:
    calls = _calls("build_session")
    assert [(module, isinstance(launcher, ast.Name)) for module, _, launcher in calls] == [
        ("services/runtime/action_session.py", True)]


def test_every_session_of_an_action_gets_the_entitys_launcher_settings() -> None:
    calls = _calls("action_session")
    modules = {module for module, _, _ in calls}
    # retention, replication, hive export and import, the ledger's tables, every feed action, process and late check
    assert {"actions/retention/retention_entry.py", "actions/replication/replication_entry.py",
            "actions/replication/hive/hive_entry.py", "actions/ledger_tables/ledger_tables_entry.py",
            "services/runtime/feed_session.py", "actions/process_runner/process_session.py"} <= modules, modules
    assert [(module, line) for module, line, launcher in calls
            if not (isinstance(launcher, ast.Call) and getattr(launcher.func, "id", None) == "launcher_confs")] == []
