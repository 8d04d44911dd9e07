"""`make bench`'s figures and its table (bench/figures.py, bench/run.py): what passes, what is flagged against the
baseline, what marks a loaded run, and that the README's table is the committed baseline."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench import run  # noqa: E402
from bench.figures import FIGURES_FILE, Figure, read_figures, report  # noqa: E402


def test_a_figure_passes_by_its_direction() -> None:
    assert Figure("b", "t / bare", 1.2, 1.5, "lower", "x").passed
    assert not Figure("b", "t / bare", 1.6, 1.5, "lower", "x").passed
    assert Figure("b", "cp / copy", 0.9, 0.8, "higher", "x").passed
    assert not Figure("b", "cp / copy", 0.7, 0.8, "higher", "x").passed


def test_more_than_20_percent_worse_than_the_baseline_is_told_in_the_direction_that_matters() -> None:
    lower = Figure("b", "f", 1.25, 2.0, "lower", "x")
    assert lower.worse_than(1.0) and not lower.worse_than(1.05)
    higher = Figure("b", "f", 0.80, 0.5, "higher", "x")
    assert higher.worse_than(1.0) and not higher.worse_than(0.9)
    assert not Figure("b", "runner - bare", 0.05, 2.0, "lower", "s").worse_than(-0.08)


def test_a_figure_with_an_unknown_direction_is_refused_where_it_is_made() -> None:
    with pytest.raises(ValueError, match="better must be"):
        Figure("b", "f", 1.0, 1.0, "smaller", "x")  # type: ignore[arg-type]


def test_report_keeps_figures_only_when_make_bench_asks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FIGURES_FILE, raising=False)
    assert report("b", "alone", 1.0, 2.0)
    kept = tmp_path / "figures.jsonl"
    monkeypatch.setenv(FIGURES_FILE, str(kept))
    assert not report("b", "share", 0.12, 0.10, unit="%")
    assert read_figures(str(kept)) == [Figure("b", "share", 0.12, 0.10, "lower", "%")]


def test_the_table_shows_now_baseline_target_and_flags_a_regression_and_a_loaded_run() -> None:
    quiet = run.BenchRun("retention_bench", 0, 60.0, 0.02, [Figure("retention_bench", "eviction / find", 1.9, 2.0,
                                                                   "lower", "x")])
    loaded = run.BenchRun("lint_bench", 0, 10.0, 0.9, [Figure("lint_bench", "lint", 1.2, 3.0, "lower", "s")])
    baseline = {figure.key: replace(figure, value=value) for figure, value in
                ((quiet.figures[0], 1.3), (loaded.figures[0], 1.2))}
    lines, passed = run.table([quiet, loaded], baseline)
    assert passed
    rows = {line.split()[0]: line for line in lines[2:]}
    assert re.search(r"eviction / find\s+1\.90x\s+1\.30x\s+<= 2\.00x\s+PASS\s+more than 20% worse",
                     rows["retention_bench"])
    assert re.search(r"lint\s+1\.20 s\s+1\.20 s\s+<= 3\.00 s\s+PASS\s+loaded: others used 0\.90 cores",
                     rows["lint_bench"])


def test_a_benchmark_that_died_without_figures_fails_the_table() -> None:
    lines, passed = run.table([run.BenchRun("hive_bench", 1, 5.0, 0.0, [])], {})
    assert not passed
    assert "exited 1 without its figures" in lines[2]


def test_a_figure_that_misses_its_target_fails_the_table() -> None:
    missed = run.BenchRun("replication_bench", 1, 5.0, 0.0, [Figure("replication_bench", "(b) rerun", 0.29, 0.10,
                                                                    "lower", "%")])
    lines, passed = run.table([missed], {})
    assert not passed
    assert re.search(r"\(b\) rerun\s+29\.0%\s+-\s+<= 10\.0%\s+FAIL", lines[2])


def test_every_benchmark_of_make_bench_is_a_file_and_the_quick_ones_are_among_them() -> None:
    assert {path.stem for path in (ROOT / "bench").glob("*_bench.py")} == set(run.ALL)
    assert set(run.QUICK) <= set(run.ALL)


def test_the_committed_baseline_is_readable_and_the_readme_shows_it() -> None:
    recorded = json.loads((ROOT / "bench" / "baseline.json").read_text())
    assert recorded["version"] == run.BASELINE_VERSION
    assert run.load_baseline(ROOT / "bench" / "baseline.json")
    assert run.readme_table(ROOT / "bench" / "baseline.json") in (ROOT / "README.md").read_text()


def test_a_damaged_baseline_is_one_sentence_naming_it(tmp_path: Path) -> None:
    damaged = tmp_path / "baseline.json"
    damaged.write_text('{"version": 1, "figures": ')
    with pytest.raises(SystemExit, match=r"the baseline .*baseline\.json cannot be read"):
        run.load_baseline(damaged)
