"""One spelling per URI, and the relations deletes depend on (toolkit/uris.py): roots in every spelling, paths
below a root, and no `.` or `..` segment ever counting as inside."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.entities.test_model import build
from toolkit.core.storage.filesystem import StorageError, plain_uri
from toolkit.core.storage.local import to_local_path
from toolkit.uris import has_dot_segment, is_below, is_root, join_under, path_below


@pytest.mark.parametrize("root", ["file:/r", "file:/r/", "file:///r", "file:///r/"])
def test_a_root_in_any_spelling_finds_the_same_paths(root: str) -> None:
    assert path_below(root, "file:///r/data/x") == "/data/x"
    assert path_below(root, "file:/r/data/x/") == "/data/x"
    assert path_below(root, "file:///r") == "/"
    assert path_below(root, "file:///r2/data") is None
    assert join_under(root, "/data/x") == "file:///r/data/x"


def test_the_machines_root() -> None:
    assert path_below("file:///", "file:///tmp/x") == "/tmp/x"
    assert join_under("file:///", "/tmp/x") == "file:///tmp/x"
    assert [is_root(uri) for uri in ("file:///", "file:/", "hdfs://nn:8020", "hdfs://nn:8020/", "file:///x")] == \
        [True, True, True, True, False]
    assert path_below("hdfs://nn:8020", "hdfs://nn:8020/a") == "/a"
    assert path_below("hdfs://nn:8020", "hdfs://mm/a") is None


@pytest.mark.parametrize("uri", ["file:///t/../x", "file:///t/./x", "file:///t/..", "hdfs://nn/t/."])
def test_dot_segments_are_never_inside(uri: str) -> None:
    assert has_dot_segment(uri)
    assert not is_below(uri, "file:///t") and not is_below(uri, "hdfs://nn/t")
    assert path_below("file:///", uri) is None
    assert not has_dot_segment("file:///t/..x/.y/x..")


def test_the_cluster_root_is_normalised_once() -> None:
    cluster = build('kind: cluster\nname: c\ninterfaces:\n  write: {endpoint: "file:/var/data/c/"}\nlocations: {}\n',
                    "clusters/c.yaml")
    assert cluster.write_endpoint == "file:///var/data/c"


@pytest.mark.parametrize("uri", [".", "..", "./x", "../x", "x/..", "x/.", "file:/./x", "hdfs://nn/."])
def test_a_dot_segment_anywhere_is_found(uri: str) -> None:
    assert has_dot_segment(uri)


_SEGMENT = st.text(alphabet="ab./:", max_size=4)


@given(st.lists(_SEGMENT, max_size=6), st.sampled_from(["", "file://", "file:/", "hdfs://nn:8020"]))
def test_the_quick_answers_are_the_segment_by_segment_ones(segments: list[str], head: str) -> None:
    """`has_dot_segment` answers most paths without splitting them, and `to_local_path` takes a path already in the
    one spelling as it is: both as the full reading would."""
    uri = head + "/".join(segments)
    assert has_dot_segment(uri) == any(segment in (".", "..") for segment in uri.split("/"))
    try:
        spelled = "/" + plain_uri(uri)[len("file:///"):] if plain_uri(uri).startswith("file:///") else None
    except StorageError:
        spelled = None
    try:
        local: str | None = to_local_path(uri)
    except StorageError:
        local = None
    assert local == spelled
