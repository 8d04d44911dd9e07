"""The figures a benchmark judges itself by: each printed for people by the benchmark, and, when `make bench` runs
it (bench/run.py names a file in FEED_TOOLKIT_BENCH_FIGURES), kept as one JSON line for the run's table.

A figure is a ratio or a time with the target it must meet and the direction that is better, so the table can
say both whether it passes and whether it moved more than 20% the wrong way from the committed baseline.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from typing import Literal

FIGURES_FILE = "FEED_TOOLKIT_BENCH_FIGURES"
Better = Literal["lower", "higher"]


@dataclass(frozen=True)
class Figure:
    """One measured figure of a benchmark; `key` is stable across runs ("retention_bench: eviction / find")."""

    bench: str
    name: str
    value: float
    target: float
    better: Better
    unit: str  # "x" (a ratio), "%" (a share, stored as a fraction), "s", "MB" (memory) or "n" (a count: a load)

    def __post_init__(self) -> None:
        if self.better not in ("lower", "higher"):
            raise ValueError(f"figure {self.key}: better must be 'lower' or 'higher', not {self.better!r}")
        if self.unit not in ("x", "%", "s", "MB", "n"):
            raise ValueError(f"figure {self.key}: unit must be x, %, s, MB or n, not {self.unit!r}")

    @property
    def key(self) -> str:
        return f"{self.bench}: {self.name}"

    @property
    def passed(self) -> bool:
        return self.value <= self.target if self.better == "lower" else self.value >= self.target

    def worse_than(self, baseline: float, margin: float = 0.20) -> bool:
        """More than `margin` worse than `baseline` in the direction that matters; never for a baseline at or
        below zero (a difference of two times that came out negative: 20% of it is noise)."""
        if baseline <= 0:
            return False
        if self.better == "lower":
            return self.value > baseline * (1 + margin)
        return self.value < baseline / (1 + margin)

    def shown(self, value: float | None = None) -> str:
        """`value` (default: this figure's) as the benchmark prints it."""
        number = self.value if value is None else value
        if self.unit == "%":
            return f"{number:.1%}"
        if self.unit == "s":
            return f"{number:.3f} s" if abs(number) < 1 else f"{number:.2f} s"
        if self.unit == "MB":
            return f"{number:.1f} MB"
        if self.unit == "n":
            return f"{number:.2f}"
        return f"{number:.2f}x"

    def target_shown(self) -> str:
        return f"{'<=' if self.better == 'lower' else '>='} {self.shown(self.target)}"


def report(bench: str, name: str, value: float, target: float, better: Better = "lower", unit: str = "x") -> bool:
    """Keep a figure for `make bench`'s table (when it runs this benchmark) and answer whether it meets its
    target; the benchmark prints its own lines for people."""
    figure = Figure(bench, name, float(value), float(target), better, unit)
    kept = os.environ.get(FIGURES_FILE)
    if kept:
        with open(kept, "a", encoding="utf-8") as out:
            out.write(json.dumps(asdict(figure)) + "\n")
    return figure.passed


def read_figures(path: str) -> list[Figure]:
    """The figures a run kept, in the order they were reported."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as lines:
        return [Figure(**json.loads(line)) for line in lines if line.strip()]
