"""What the lineage tests of every action share: a Lineage that sends to the loopback receiver
(tests/lineage_receiver.py) and keeps its records in the cluster's ledger, and the received events checked
against the specification's schemas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.lineage_receiver import Receiver
from tests.openlineage_schema import validate_event
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.openlineage.run import Lineage
from toolkit.services.openlineage.settings import LineageSettings
from toolkit.services.openlineage.store import LineageBook


def lineage_to(url: str, repo: Path | ConfigRepo, run_id: str = "run1", cluster: str = "primary") -> Lineage:
    """The lineage of a call on `cluster` of the repository `repo` (its folder, or loaded), sent to `url` over
    HTTP."""
    found = (repo if isinstance(repo, ConfigRepo) else ConfigRepo.load(repo)).cluster(cluster)
    settings = LineageSettings(f"feed-toolkit.{cluster}", {"transport": {"type": "http", "url": url}})
    return Lineage(settings, LineageBook(LocalFileSystem(), LedgerLayout.of(found)), run_id, cluster)


def valid_events(receiver: Receiver) -> list[dict[str, Any]]:
    """The events received, each valid against the specification (AssertionError naming the problem if not)."""
    for event in receiver.events:
        validate_event(event)
    return receiver.events


def names(datasets: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(namespace, name) of each input or output dataset of an event."""
    return [(dataset["namespace"], dataset["name"]) for dataset in datasets]


def instances(dataset: dict[str, Any], facets: str = "outputFacets") -> list[dict[str, Any]]:
    """The toolkit's instances facet of a dataset (`inputFacets` for an input)."""
    return list(dataset[facets]["feedToolkit_instances"]["instances"])
