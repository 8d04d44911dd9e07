"""The ledger commands' tests' fixtures `site`, `history` and `metered` (tests/unit/cli/ledger_site.py)."""

from tests.unit.cli.ledger_site import history, metered, site  # noqa: F401
