"""The linter, the time engine and the entity model run in pre-commit without Spark (docs/architecture.md)."""

import subprocess
import sys

import pytest

LIGHT_MODULES = ["toolkit.el.expressions", "toolkit.el.templates", "toolkit.el.resolution", "toolkit.entities",
                 "toolkit.entities.repo", "toolkit.instances.process_instance", "toolkit.instances.window_inverse",
                 "toolkit.cli.main", "toolkit.cli.commands.graph", "toolkit.lineage.walk",
                 "toolkit.cli.commands.lineage"]


@pytest.mark.parametrize("module", LIGHT_MODULES)
def test_module_leaves_pyspark_out(module: str) -> None:
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]", f"{module} pulled in {result.stdout.strip()}"


def test_nothing_below_the_cli_imports_it() -> None:
    """Layers point downward (docs/architecture.md): the actions and the storage never import `toolkit.cli`."""
    from pathlib import Path

    package = Path(__file__).resolve().parents[2] / "toolkit"
    offenders = sorted(str(path.relative_to(package.parent)) for path in package.rglob("*.py")
                       if package / "cli" not in path.parents and path.name != "__main__.py"
                       and ("from toolkit.cli" in path.read_text() or "import toolkit.cli" in path.read_text()))
    assert offenders == [], f"modules below the CLI import it: {offenders}"
