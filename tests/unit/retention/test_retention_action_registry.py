"""The retention actions' registry: one module an action, the feed schema's enum equal to it, and each action's
checks made before anything is touched, in the same sentence for lint FD024 and the retention entrypoint."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.loading import parse_entity
from toolkit.core.entities.model import Feed
from toolkit.core.entities.schemas import schema
from toolkit.errors import ToolkitError, UsageError
from toolkit.extensions.retention_actions.action import RetentionAction
from toolkit.extensions.retention_actions.registry import retention_action_named, retention_actions


def _schema_enum() -> list[str]:
    return list(schema(Kind.FEED)["definitions"]["retention"]["properties"]["action"]["enum"])


def test_the_schemas_enum_names_exactly_the_registered_actions() -> None:
    assert sorted(retention_actions()) == sorted(_schema_enum())
    assert {"archive", "chmod", "chown", "delete"} <= set(retention_actions())


def test_which_actions_run_and_which_apply_to_tables() -> None:
    facts = {name: (action.prepare is not None, action.table_refusal is None)
             for name, action in retention_actions().items() if name in ("archive", "chmod", "chown", "delete")}
    assert facts == {"archive": (True, False), "chmod": (False, True), "chown": (False, True), "delete": (True, True)}


def test_an_unknown_name_is_a_toolkit_error_that_lists_the_actions() -> None:
    with pytest.raises(ToolkitError, match="'shred' is not one of this toolkit's: archive, chmod, chown, delete"):
        retention_action_named("shred")


def test_a_description_is_checked_where_it_is_built() -> None:
    with pytest.raises(ValueError, match="either prepare evictions or say why it is refused"):
        RetentionAction(name="shred")


def test_falcons_actions_are_refused_naming_the_feed_and_the_cluster() -> None:
    feed, problems = parse_entity("""
kind: feed
name: clicks
frequency: hours(1)
clusters:
  - name: primary
    validity: {start: "2026-01-01T00:00Z", end: "2099-01-01T00:00Z"}
    retention: {limit: days(7), action: chown}
locations:
  data: /data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}
""", Path("feeds/clicks.yaml"))
    assert isinstance(feed, Feed) and problems == []
    with pytest.raises(UsageError, match="The retention action 'chown' of feed 'clicks' on cluster 'primary' is "
                                         "Falcon's and the toolkit does not run it"):
        retention_action_named("chown").check(feed, "primary", None, is_table=False)
