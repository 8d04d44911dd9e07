"""Every action runs in its entity's YARN queue and priority: each call of build_session in the toolkit passes
the entity's launcher settings (the integration tests read them from the sessions of retention, replication
and late_check; this keeps the other actions, and new ones, from building a session without them)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "toolkit"


def test_every_session_of_an_action_gets_the_entitys_launcher_settings() -> None:
    calls = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "build_session":
                keywords = {keyword.arg: keyword.value for keyword in node.keywords}
                launcher = keywords.get("launcher")
                passed = isinstance(launcher, ast.Name) or (
                    isinstance(launcher, ast.Call) and getattr(launcher.func, "id", None) == "launcher_confs")
                calls.append((str(path.relative_to(PACKAGE)), node.lineno, passed))
    assert len(calls) >= 5, calls  # retention, replication, hive export and import, process and late check
    assert [call for call in calls if not call[2]] == []
