"""The ledger commands' tests' fixtures `site` and `history` (tests/unit/cli/ledger_site.py)."""

from tests.unit.cli.ledger_site import history, site  # noqa: F401
