"""The sla command' tests' fixture `site` (tests/unit/schedule/sla_site.py)."""

from tests.unit.schedule.sla_site import site  # noqa: F401
