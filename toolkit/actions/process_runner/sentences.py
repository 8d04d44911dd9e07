"""What a process run says to people: sentences on stderr, apart from the status line on stdout, each masked (an
error it quotes can hold a password: secrets_masking.py) and an error quoted to `BRIEF` characters. Light, so that
the wait before Spark (wait_before_spark.py) says them without importing the runner."""

from __future__ import annotations

import sys
from collections.abc import Callable

from toolkit.secrets_masking import masked

BRIEF = 500  # the most characters of an error a sentence on stderr quotes; the ledger keeps the whole


def say(line: str) -> None:
    """A sentence for people: on stderr, apart from the status line on stdout."""
    print(line, file=sys.stderr, flush=True)


def masking(log: Callable[[str], None]) -> Callable[[str], None]:
    """`log`, each sentence masked first."""
    return lambda line: log(masked(line))
