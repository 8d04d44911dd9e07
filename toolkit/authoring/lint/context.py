"""What rules see: the scanned repo, and cached derived values several rules need (grids, templates,
parsed expressions, quality suites), computed once per lint run."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cached_property
from pathlib import Path

from toolkit.core.el.expressions import Expression, parse_expression
from toolkit.core.el.templates import PathTemplate
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.mirror_folders import WrittenFolders
from toolkit.core.entities.model import Entity, Input, Output, Process
from toolkit.core.entities.quality_suites import QualitySuite, SuiteError, read_suite
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError


class LintContext:
    """The repo under lint: its valid entities (as the model) and the names of every entity file."""

    def __init__(self, repo: ConfigRepo) -> None:
        self.repo = repo
        self._expressions: dict[str, Expression | UsageError] = {}
        self._templates: dict[str, PathTemplate | UsageError] = {}
        self._suites: dict[str, QualitySuite | SuiteError] = {}

    @property
    def root(self) -> Path:
        return self.repo.root

    def entities_of(self, kind: Kind) -> Iterable[Entity]:
        """Every entity of `kind`, duplicates included (each file is checked on its own)."""
        return [entity for entity in self.repo.entities if entity.kind is kind]

    @property
    def processes_complete(self) -> bool:
        """False while a process file fails to load: who reads or writes a feed is then not known."""
        return not any(ref.kind is Kind.PROCESS for ref in self.repo.unloaded)

    @cached_property
    def written_folders(self) -> WrittenFolders:
        """What the feeds, clusters and mirrors write, by file system (built on first use: a repo without mirrors
        never pays for it)."""
        return WrittenFolders(self.repo)

    @cached_property
    def readers(self) -> dict[str, tuple[Process, ...]]:
        """Feed name -> the processes with an input on it (one pass over the processes)."""
        return self._index(lambda process: process.inputs)

    @cached_property
    def writers(self) -> dict[str, tuple[Process, ...]]:
        """Feed name -> the processes with an output on it."""
        return self._index(lambda process: process.outputs)

    def _index(self, items: Callable[[Process], Iterable[Input | Output]]) -> dict[str, tuple[Process, ...]]:
        index: dict[str, list[Process]] = {}
        for process in self.repo.processes.values():
            for feed in dict.fromkeys(item.feed for item in items(process)):
                index.setdefault(feed, []).append(process)
        return {feed: tuple(processes) for feed, processes in index.items()}

    def expression(self, text: str) -> Expression | UsageError:
        """The parsed expression, or the error that says why it is invalid (cached)."""
        if text not in self._expressions:
            try:
                self._expressions[text] = parse_expression(text)
            except UsageError as err:
                self._expressions[text] = err
        return self._expressions[text]

    def template(self, text: str) -> PathTemplate | UsageError:
        """The path template, or the error naming its unknown variable (cached)."""
        if text not in self._templates:
            try:
                self._templates[text] = PathTemplate(text)
            except UsageError as err:
                self._templates[text] = err
        return self._templates[text]

    def suite(self, path: str) -> QualitySuite | SuiteError:
        """The quality suite at `path` in the repo, or the error saying why it is missing or no suite (cached: a
        suite named by a feed and by the outputs that write it is read once)."""
        if path not in self._suites:
            try:
                self._suites[path] = read_suite(self.root, path)
            except SuiteError as err:
                self._suites[path] = err
        return self._suites[path]
