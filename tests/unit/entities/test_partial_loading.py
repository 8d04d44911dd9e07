"""`ConfigRepo.load_only`: a command about one process parses that process and what it references only (found by
the naming convention, else by a pre-scan of `kind:`/`name:`), with the errors `load` gives, while `scan` (lint)
still reads everything; and the pre-scan itself (prescan.py)."""

from __future__ import annotations

import pytest
from entity_samples import PROCESS, write_files
from test_config_repo import small_repo

from toolkit.core.entities import ConfigRepo, EntityRef, Kind
from toolkit.core.entities import repo as repo_module
from toolkit.core.entities.prescan import declared_in
from toolkit.errors import UsageError

C, F, P = Kind.CLUSTER, Kind.FEED, Kind.PROCESS
BROKEN = "kind: feed\nname: broken\nfrequency: weekly\n"  # invalid: no clusters, a bad frequency


def parsed_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files `load_only` parses, as it parses them."""
    seen: list[str] = []
    real = repo_module.load_entity

    def counting(file):  # type: ignore[no-untyped-def]
        seen.append(f"{file.parent.name}/{file.name}")
        return real(file)

    monkeypatch.setattr(repo_module, "load_entity", counting)
    return seen


def test_only_the_process_and_what_it_references_are_parsed(tmp_path, monkeypatch):
    root = small_repo(tmp_path, **{"feeds/broken.yaml": BROKEN})
    seen = parsed_files(monkeypatch)
    repo = ConfigRepo.load_only(root, [EntityRef(P, "p1"), EntityRef(C, "a")])
    # mid is on clusters a and b: b is referenced too; p2, out and the broken feed are not read
    assert sorted(seen) == ["clusters/a.yaml", "clusters/b.yaml", "feeds/mid.yaml", "feeds/raw.yaml",
                            "processes/p1.yaml"]
    assert [entity.name for entity in repo.entities] == ["a", "b", "mid", "raw", "p1"]
    assert repo.process("p1").outputs[0].feed == "mid" and repo.feed("mid").cluster_names == ("a", "b")
    assert repo.dependencies(EntityRef(P, "p1")) == (EntityRef(C, "a"), EntityRef(F, "raw"), EntityRef(F, "mid"))
    # The broken feed stops neither this nor lint's finding it
    _, problems = ConfigRepo.scan(root)
    assert problems and all("broken.yaml" in str(problem.location) for problem in problems)
    with pytest.raises(UsageError):
        ConfigRepo.load(root)


def test_a_referenced_entity_with_a_problem_is_refused_naming_it(tmp_path):
    root = small_repo(tmp_path, **{"feeds/raw.yaml": BROKEN.replace("broken", "raw")})
    with pytest.raises(UsageError, match=r"has \d+ problems? .*the first is .*feeds/raw.yaml"):
        ConfigRepo.load_only(root, [EntityRef(P, "p1")])


def test_a_file_named_otherwise_is_found_by_the_prescan(tmp_path, monkeypatch):
    root = small_repo(tmp_path)
    (root / "processes/p1.yaml").rename(root / "processes/first.yaml")
    seen = parsed_files(monkeypatch)
    repo = ConfigRepo.load_only(root, [EntityRef(P, "p1")])
    assert repo.process("p1").source_file.name == "first.yaml"
    assert "processes/p2.yaml" not in seen


def test_a_name_declared_twice_is_refused_as_load_refuses_it(tmp_path):
    root = small_repo(tmp_path)
    (root / "processes/other.yaml").write_text(PROCESS.format(name="p1", cluster="a", input="raw", output="mid"))
    (root / "processes/p1.yaml").rename(root / "processes/zz.yaml")  # no file by the convention: the pre-scan
    with pytest.raises(UsageError, match="defines process 'p1' more than once"):
        ConfigRepo.load_only(root, [EntityRef(P, "p1")])


def test_an_unknown_process_names_the_known_ones(tmp_path):
    root = small_repo(tmp_path)
    with pytest.raises(UsageError, match="Unknown process 'p9' in repo .*: known processes are p1, p2"):
        ConfigRepo.load_only(root, [EntityRef(P, "p9")]).process("p9")


def test_a_file_the_prescan_cannot_read_is_parsed(tmp_path):
    flow = "{kind: process, name: p3, clusters: [{name: a, validity: {start: 2026-01-01T00:00Z, end: " \
           "2027-01-01T00:00Z}}], frequency: hours(1), workflow: {engine: pyspark, path: w.py}}\n"
    root = write_files(tmp_path, {"clusters/a.yaml": small_repo_text(tmp_path), "processes/third.yaml": flow})
    assert ConfigRepo.load_only(root, [EntityRef(P, "p3")]).process("p3").frequency is not None


def small_repo_text(tmp_path) -> str:  # type: ignore[no-untyped-def]
    return (small_repo(tmp_path / "sample") / "clusters/a.yaml").read_text()


@pytest.mark.parametrize(("text", "expected"), [
    ("kind: process\nname: p1\n", EntityRef(P, "p1")),
    ("# a comment\nname: 'q-1'  # the name\nkind: \"cluster\"\n", EntityRef(C, "q-1")),
    ("kind: feed\nname: x\nclusters:\n  - name: a\n", EntityRef(F, "x")),
    ("kind: feed\n", None),  # no name
    ("kind: feed\nname: x\nname: y\n", None),  # twice: YAML refuses it, the real load says so
    ("kind: {a: b}\nname: x\n", None),
    ("kind: feed\nname: &n x\n", None),  # an anchor
    ("kind: feed\nname: |\n  x\n", None),  # a block scalar
    ("kind: dataset\nname: x\n", None),  # not a kind
])
def test_the_prescan_reads_only_what_it_can_be_sure_of(text, expected):
    assert declared_in(text) == expected
