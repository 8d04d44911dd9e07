"""Where ingest folders may lie (toolkit/core/entities/ingest_folders.py), the logic FD030, FD034 and the ingest run
share: a folder meets another at a path boundary (is, lies inside, holds), never by a shared string prefix; the
index finds the same overlaps a comparison with every folder would."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from toolkit.core.entities.ingest_folders import (
    DATA,
    DEAD_LETTERS,
    LANDING,
    Folder,
    Folders,
    data_prefix,
    folder_problem,
    relation,
)
from toolkit.core.entities.loading import parse_entity
from toolkit.core.entities.model import Feed


def streamed_feed() -> Feed:
    """Feed `events`, landing in /landing/events (written with a trailing /), dead letters in /rejected/events."""
    entity, problems = parse_entity(textwrap.dedent("""\
        kind: feed
        name: events
        frequency: hours(1)
        clusters:
          - name: primary
            validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
        locations: {data: "/data/events/${YEAR}"}
        columns: [{name: ts, type: string}]
        ingest: {landing: /landing/events/, format: json, dead-letters: /rejected/events}
        """), Path("feeds/events.yaml"))
    assert problems == [] and isinstance(entity, Feed)
    return entity


FEED = streamed_feed()


@pytest.mark.parametrize(("path", "folder", "how"), [
    ("/a/b", "/a/b", "is"), ("/a/b/c", "/a/b", "lies inside"), ("/a", "/a/b", "holds"), ("/a/bc", "/a/b", None),
    ("/a/b", "/a/bc", None), ("/x", "/a", None),
])
def test_relation_is_at_path_boundaries(path: str, folder: str, how: str | None) -> None:
    assert relation(path, folder) == how


@pytest.mark.parametrize(("locations", "table", "prefix"), [
    ({"data": "/data/x/${YEAR}/${MONTH}"}, None, "/data/x"),
    ({"data": "/data/x/"}, None, "/data/x"),
    ({"data": "/${YEAR}/x"}, None, None),  # fixed only at the root: no folder of its own
    ({"data": "/data/${NOPE}/x"}, None, None),  # does not parse: FD008's
    ({"stats": "/stats/x/${YEAR}"}, None, None),
    ({}, "catalog:db:t#ds=${YEAR}", None),  # a table has no data folder
])
def test_data_prefix_is_the_fixed_folder_of_a_file_feeds_data(locations: dict[str, str], table: str | None,
                                                              prefix: str | None) -> None:
    assert data_prefix(locations, table) == prefix


def test_only_fixed_absolute_folders_are_ingest_folders() -> None:
    assert [folder_problem(path) is None for path in ("/landing/x", "landing/x", "/a/../b", "/l/${YEAR}", "/")] == [
        True, False, False, False, False]


def test_the_index_finds_what_the_feed_is_inside_holds_and_is_never_its_own_ingest_folders() -> None:
    others = [Folder("a", DATA, "/landing"), Folder("b", DATA, "/landing/events/sub"),
              Folder("c", LANDING, "/landing/events"), Folder("d", DATA, "/landing/events-old"),
              Folder("e", DEAD_LETTERS, "/rejected/events/x"), Folder("events", DATA, "/rejected")]
    own = [Folder("events", LANDING, "/landing/events"), Folder("events", DEAD_LETTERS, "/rejected/events")]
    folders = Folders([*others, *own, others[0]])
    found = {(o.mine.field, o.how, o.theirs.feed) for o in folders.overlaps(FEED, own_data=False)}
    assert found == {(LANDING, "lies inside", "a"), (LANDING, "holds", "b"), (LANDING, "is", "c"),
                     (DEAD_LETTERS, "holds", "e")}
    with_own = {(o.mine.field, o.how, o.theirs.feed) for o in folders.overlaps(FEED, own_data=True)}
    assert with_own == found | {(DEAD_LETTERS, "lies inside", "events")}


def test_a_feed_without_ingest_has_no_overlaps() -> None:
    assert list(Folders([Folder("a", DATA, "/landing")]).overlaps(replace(FEED, ingest=None), own_data=True)) == []
