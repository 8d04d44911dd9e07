"""Where the metrics go: node_exporter's textfile collector (the usual way for batch jobs: a file written
atomically, read at each of node_exporter's scrapes), an HTTP `/metrics` for Prometheus to scrape, or stdout.
prometheus-client serves the scrapes; the one-shot text is `metrics_text`'s, which is the library's text written
faster."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from prometheus_client import CollectorRegistry, start_http_server

from toolkit.cli.metrics_text import FamilyText, family_texts, joined
from toolkit.cli.output_files import remove_left
from toolkit.core.entities.yaml_loader import collector_paused
from toolkit.core.storage.local_files import left_by_dead_writers, replace_file
from toolkit.errors import UsageError
from toolkit.forked_map import forked_map, worker_count
from toolkit.views.metrics.cluster_readings import ClusterScope
from toolkit.views.metrics.families import Families, LedgerCollector

TEXTFILE = "feed_toolkit.prom"  # node_exporter reads the *.prom files of its --collector.textfile.directory
DEFAULT_PORT = 9464
WRITE_APART = 100  # entities: from this many, the text is written in parts, a part on each core


def registry_of(collector: LedgerCollector) -> CollectorRegistry:
    """A registry of the ledger's metrics alone (not the process's own, which say nothing of the data)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    return registry


@dataclass(frozen=True)
class Exposition:
    """The text of one collection, and what it holds (the command's status line says it)."""

    text: str
    feeds: int
    processes: int
    action_runs: int


def text(collector: LedgerCollector) -> Exposition:
    """The text format of one collection, as `generate_latest` of the whole writes it: what is read once for the
    cluster is read here, then each core reads a part of the entities' ledgers (`ClusterScope.read`) and writes its
    families' texts (`metrics_text`: a cluster of a thousand processes and two thousand feeds has 33,000 samples),
    and the parts' texts are joined family by family. A part's readings never leave the core that read them."""
    with collector_paused():  # some 200,000 objects of readings and samples, none in a cycle: no GC pass over them
        scope = collector.scope()
        alone = not scope.ledger.fs.shared_with_forks  # a connection a fork would share (WebHDFS): one process
        count = worker_count(scope.entities, WRITE_APART, alone)
        parts = forked_map(partial(_part_text, scope, count), range(count), alone=alone)
        return Exposition(joined([written for written, _ in parts]), len(scope.feeds), len(scope.processes),
                          sum(actions for _, actions in parts))


def _part_text(scope: ClusterScope, count: int, index: int) -> tuple[list[FamilyText], int]:
    """The families' texts of the `index`th of `count` parts, and the action runs it holds."""
    readings = scope.read(index, count)
    return family_texts(Families.part(readings, index).collect()), len(readings.actions)


def write_textfile(collector: LedgerCollector, folder: Path) -> tuple[Path, Exposition]:
    """The collection written into `folder/feed_toolkit.prom` (that path, and what was written), replaced
    atomically by the writer of every file a command names (toolkit/core/storage/local_files.py: a temporary file beside
    it, `.feed_toolkit.prom.<pid>.<random>.tmp`, whose name node_exporter ignores, never a link planted there,
    renamed): a scrape reads the old file or the new one, never half of one."""
    if not folder.is_dir():
        raise UsageError(f"--textfile {folder} is not a folder: give node_exporter's "
                         "--collector.textfile.directory (it must exist).")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"--textfile {folder} is not writable by this user: give a folder it can write, or run as "
                         "the user that owns it.")
    target = folder / TEXTFILE
    remove_left(left_by_dead_writers(target), "metrics")
    exposition = text(collector)
    try:
        replace_file(target, exposition.text.encode())
    except OSError as err:
        raise UsageError(f"Cannot write {target}: {err.strerror or err}; the previous file, if any, is left as it "
                         "was: make the place a file this user can replace.") from None
    return target, exposition


@dataclass(frozen=True)
class Address:
    host: str
    port: int

    @classmethod
    def parse(cls, text: str) -> Address:
        """`PORT` (on 127.0.0.1) or `HOST:PORT`; a bare IPv6 host in brackets, `[::1]:9464`."""
        host, colon, port = text.rpartition(":")
        host = host.strip("[]") if colon else "127.0.0.1"
        if not port.isdigit() or not 0 < int(port) < 65536 or (colon and not host):
            raise UsageError(f"--listen {text!r} is not HOST:PORT or PORT: give e.g. 127.0.0.1:{DEFAULT_PORT}.")
        return cls(host, int(port))

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"


@contextmanager
def listening(registry: CollectorRegistry, address: Address) -> Iterator[None]:
    """`/metrics` served at `address` (each scrape reads the ledger again) until the block ends."""
    try:
        server, thread = start_http_server(address.port, address.host, registry)
    except OSError as err:
        raise UsageError(f"Cannot listen on {address.host}:{address.port}: {err.strerror or err}.") from None
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
