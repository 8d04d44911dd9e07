"""One spelling per URI, and the relations deletes depend on (toolkit/uris.py): roots in every spelling, paths
below a root, and no `.` or `..` segment ever counting as inside."""

from __future__ import annotations

import pytest

from tests.unit.entities.test_model import build
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
