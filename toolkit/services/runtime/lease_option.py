"""`--lease SECONDS`, the one argument of every entrypoint that holds a lease of the cluster's ledger (retention,
replication, the database import and export, the Hive import, the process runner and its late check): how long the
lock is held without renewal, so how soon a killed run's lock is taken over."""

from __future__ import annotations

import argparse

from toolkit.core.ledger.store import DEFAULT_LEASE_SECONDS
from toolkit.services.runtime.entry_frame import seconds


def lease_seconds(text: str) -> float:
    """An argparse type: `seconds` (entry_frame.py), and more than zero: a lease of none is no lease (a bad one is
    exit 2 with argparse's message, one sentence whatever is wrong, before anything is read)."""
    try:
        value = seconds(text)
    except argparse.ArgumentTypeError:
        value = 0.0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds, at most a year")
    return value


def add_lease_argument(parser: argparse.ArgumentParser, lock: str, *, renewed: bool = True) -> None:
    """`--lease` of the lock `lock` ("the import's lock"), by default the ledger's; `renewed`: the run renews it
    every third of the lease while it works (a late check's rerun takes it once)."""
    taken_over = (f"Lease of {lock}, renewed every third of it; a killed run's lock is taken over once it expired"
                  if renewed else f"Lease of {lock}")
    parser.add_argument("--lease", type=lease_seconds, default=DEFAULT_LEASE_SECONDS, metavar="SECONDS",
                        help=f"{taken_over} (default {DEFAULT_LEASE_SECONDS:.0f}).")
