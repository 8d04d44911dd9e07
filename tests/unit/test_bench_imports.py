"""Every name a benchmark imports from the toolkit exists: a benchmark imports the toolkit inside its `main()` (its
scratch tree first), so a module that moved breaks `make bench` only when that benchmark runs, after a quarter of
an hour (lineage_bench imported `WallClock` from the process runner for two sessions after it moved to
toolkit/clock.py). This reads each benchmark's imports and resolves them, in a second; a name from another
benchmark is looked for in its file, which is not run (its set-up imports Spark)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _imports(script: Path) -> list[tuple[str, str]]:
    """(module, name) of each `from toolkit... import name` in the script, at any depth."""
    found = []
    for node in ast.walk(ast.parse(script.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ("toolkit", "bench"):
            found += [(node.module, alias.name) for alias in node.names]
    return found


def _defined(script: Path) -> set[str]:
    """The names a benchmark defines or imports at its top level, read without running it (another benchmark's
    set-up imports Spark at its top)."""
    names: set[str] = set()
    for node in ast.parse(script.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


@pytest.mark.parametrize("script", sorted(BENCH.glob("*.py")), ids=lambda path: path.name)
def test_what_a_benchmark_imports_exists(script: Path) -> None:
    missing = []
    for module, name in _imports(script):
        sibling = BENCH / f"{module.removeprefix('bench.')}.py"
        if module.startswith("bench.") and module.endswith("_bench") and sibling.exists():
            if name not in _defined(sibling):
                missing.append(f"{module}.{name}")
            continue
        imported = importlib.import_module(module)
        if not hasattr(imported, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ModuleNotFoundError:
                missing.append(f"{module}.{name}")
    assert missing == [], f"{script.name} imports names that do not exist: {missing}"
