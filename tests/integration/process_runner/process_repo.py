"""The template's config repo with temp cluster roots, generated clicks, a clock the tests move, and a
runner of process instances in the test SparkSession (the real engines, file system and ledger)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

from tests.unit.retention.retention_repo import make_repo, utc
from toolkit.actions.process_runner.run_results import RunOptions
from toolkit.actions.process_runner.runner import ProcessRunner
from toolkit.core.entities.repo import ConfigRepo
from toolkit.services.openlineage.run import Lineage
from toolkit.services.runtime.run_context import RunContext

__all__ = ["TestClock", "clicks_rows", "make_repo", "new_runner", "utc", "write_clicks", "write_process"]

PAGES = ("/", "/cart", "/help")


def clicks_rows(hour: datetime) -> list[dict[str, str]]:
    """Deterministic clicks of an hour: 2 + hour % 3 clicks per page, users u0.. u2."""
    return [{"ts": hour.strftime("%Y-%m-%dT%H:%M:00Z"), "user": f"u{k % 3}", "page": page}
            for page in PAGES for k in range(2 + hour.hour % 3)]


def write_clicks(root: Path, first: datetime, hours: int, flag: bool = True) -> list[Path]:
    folders = []
    for k in range(hours):
        hour = first + timedelta(hours=k)
        folder = root / "data" / "clicks" / f"{hour:%Y/%m/%d/%H}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "part-00000.json").write_text("".join(json.dumps(row) + "\n" for row in clicks_rows(hour)))
        if flag:
            (folder / "_SUCCESS").write_text("")
        folders.append(folder)
    return folders


def write_process(repo: Path, name: str, replacements: dict[str, str], base: str = "hourly-clicks-summary") -> str:
    """A copy of a template process under another name, with text replaced (each must occur)."""
    text = (repo / "processes" / f"{base}.yaml").read_text().replace(f"name: {base}", f"name: {name}", 1)
    for old, new in replacements.items():
        assert old in text, old
        text = text.replace(old, new)
    (repo / "processes" / f"{name}.yaml").write_text(text)
    return name


class TestClock:
    """Starts at `now`; sleeping moves it (no real wait) and calls `on_sleep` (an input arriving meanwhile)."""

    __test__ = False

    def __init__(self, now: datetime, on_sleep=None) -> None:  # type: ignore[no-untyped-def]
        self.current, self.on_sleep, self.slept = now, on_sleep, []

    def now(self) -> datetime:
        return self.current

    def time(self) -> float:
        return self.current.timestamp()

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.current += timedelta(seconds=seconds)
        if self.on_sleep is not None:
            self.on_sleep(self)


def new_runner(spark, repo: Path, process: str, clock, options: RunOptions | None = None,  # type: ignore[no-untyped-def]
               run_id: str = "run1", lease: float = 60.0, cluster: str = "primary", fs=None,
               log=None, lineage=None) -> ProcessRunner:
    from toolkit.core.storage.catalog_factory import catalog_for
    from toolkit.core.storage.hadoop import HadoopFileSystem

    config = ConfigRepo.load(repo)
    fs = fs or HadoopFileSystem(spark)
    context = RunContext(fs, run_id, lease_seconds=lease, lineage=lineage if lineage is not None else Lineage.off(),
                         clock=clock)
    return ProcessRunner(config, process, cluster, context, spark=spark, catalog=lambda: catalog_for(spark, None),
                         options=options or RunOptions(), log=log or (lambda line: None))
