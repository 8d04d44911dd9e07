"""The linter, the time engine and the entity model run in pre-commit without Spark, Great Expectations or pandas
(docs/architecture.md; the last two come with the `quality` extra only)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

LIGHT_MODULES = ["toolkit.core.el.expressions", "toolkit.core.el.templates", "toolkit.core.el.resolution",
                 "toolkit.core.entities", "toolkit.core.entities.repo", "toolkit.core.instances.process_instance",
                 "toolkit.core.instances.window_inverse", "toolkit.cli.main", "toolkit.cli.commands.graph",
                 "toolkit.views.lineage.walk", "toolkit.cli.commands.lineage", "toolkit.authoring.lint.runner",
                 "toolkit.core.entities.quality_suites", "toolkit.core.ledger.quality_results"]
HEAVY = ("pyspark", "py4j", "great_expectations", "pandas")
LOADED = f"sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})"


@pytest.mark.parametrize("module", LIGHT_MODULES)
def test_module_leaves_pyspark_out(module: str) -> None:
    code = f"import sys, {module}; print({LOADED})"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]", f"{module} pulled in {result.stdout.strip()}"


def test_linting_a_repo_with_quality_suites_leaves_them_out(tmp_path: Path) -> None:
    """Every rule loaded and run, the data-quality ones reading a suite."""
    root = tmp_path / "repo"
    shutil.copytree(Path(__file__).resolve().parents[2] / "config_repo_template", root)
    feed = root / "feeds" / "page-views.yaml"
    feed.write_text(feed.read_text() + "quality:\n  suite: quality/page-views.json\n")
    (root / "quality").mkdir(exist_ok=True)  # beside the template's own suite
    (root / "quality" / "page-views.json").write_text(
        '{"name": "page-views", "expectations": [{"type": "expect_column_values_to_not_be_null", '
        '"kwargs": {"column": "page"}}]}')
    code = ("import sys; from pathlib import Path; from toolkit.authoring.lint.runner import lint_paths; "
            f"print([p.code for p in lint_paths([Path({str(root)!r})]).problems]); print({LOADED})")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.splitlines() == ["[]", "[]"]


def test_nothing_below_the_cli_imports_it() -> None:
    """Layers point downward (docs/architecture.md): the actions and the storage never import `toolkit.cli`."""
    from pathlib import Path

    package = Path(__file__).resolve().parents[2] / "toolkit"
    offenders = sorted(str(path.relative_to(package.parent)) for path in package.rglob("*.py")
                       if package / "cli" not in path.parents and path.name != "__main__.py"
                       and ("from toolkit.cli" in path.read_text() or "import toolkit.cli" in path.read_text()))
    assert offenders == [], f"modules below the CLI import it: {offenders}"
