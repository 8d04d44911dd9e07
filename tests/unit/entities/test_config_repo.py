"""ConfigRepo: loading and scanning, lookups and their errors, the dependency graph both ways."""

from __future__ import annotations

import pytest
from entity_samples import CLUSTER, FEED, PROCESS, write_files

from toolkit.core.entities import ConfigRepo, EntityRef, Kind, find_repo_root, is_config_repo
from toolkit.core.entities.repo import entity_files
from toolkit.errors import UsageError

C, F, P = Kind.CLUSTER, Kind.FEED, Kind.PROCESS


def small_repo(root, **extra):
    """Clusters a and b; feeds raw (on a), mid (on a, b), out (on b); p1: raw -> mid; p2: mid -> out."""
    files = {
        "clusters/a.yaml": CLUSTER.format(name="a"),
        "clusters/b.yaml": CLUSTER.format(name="b"),
        "feeds/raw.yaml": FEED.format(name="raw", cluster="a"),
        "feeds/mid.yaml": FEED.format(name="mid", cluster="a").replace(
            "locations:", "  - name: b\n    validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}\nlocations:"
        ),
        "feeds/out.yaml": FEED.format(name="out", cluster="b"),
        "processes/p1.yaml": PROCESS.format(name="p1", cluster="a", input="raw", output="mid"),
        "processes/p2.yaml": PROCESS.format(name="p2", cluster="b", input="mid", output="out"),
    }
    files.update(extra)
    return write_files(root, files)


def test_lookups_by_kind(tmp_path):
    repo = ConfigRepo.load(small_repo(tmp_path))
    assert sorted(repo.clusters) == ["a", "b"]
    assert sorted(repo.feeds) == ["mid", "out", "raw"]
    assert sorted(repo.processes) == ["p1", "p2"]
    assert repo.feed("mid").cluster_names == ("a", "b")
    assert repo.cluster("b").write_endpoint == "file:///tmp/b"
    assert repo.process("p2").inputs[0].feed == "mid"
    assert repo.get(EntityRef(F, "raw")) is repo.feed("raw")
    assert repo.find(EntityRef(C, "zzz")) is None


def test_unknown_entity_names_the_known_ones(tmp_path):
    repo = ConfigRepo.load(small_repo(tmp_path / "conf"))
    with pytest.raises(UsageError) as raised:
        repo.feed("clickz")
    assert str(raised.value) == f"Unknown feed 'clickz' in repo {tmp_path}/conf/: known feeds are mid, out, raw."
    assert raised.value.exit_code == 2
    with pytest.raises(UsageError, match="Unknown process 'p3' .*: known processes are p1, p2."):
        repo.process("p3")


def test_unknown_entity_of_a_kind_the_repo_lacks(tmp_path):
    repo = ConfigRepo.load(write_files(tmp_path, {"clusters/a.yaml": CLUSTER.format(name="a")}))
    with pytest.raises(UsageError, match=r"Unknown feed 'clicks' in repo .*: it has no feeds\.$"):
        repo.feed("clicks")


def test_dependencies_both_ways(tmp_path):
    repo = ConfigRepo.load(small_repo(tmp_path))
    assert repo.dependencies(repo.process("p1")) == (EntityRef(C, "a"), EntityRef(F, "raw"), EntityRef(F, "mid"))
    assert repo.dependencies(repo.feed("mid")) == (EntityRef(C, "a"), EntityRef(C, "b"))
    assert repo.dependencies(repo.cluster("a")) == ()
    assert repo.dependents(repo.feed("mid")) == (EntityRef(P, "p1"), EntityRef(P, "p2"))
    assert repo.dependents(EntityRef(C, "b")) == (EntityRef(F, "mid"), EntityRef(F, "out"), EntityRef(P, "p2"))
    assert repo.dependents(repo.process("p2")) == ()


def test_transitive_dependencies_both_ways(tmp_path):
    repo = ConfigRepo.load(small_repo(tmp_path))
    assert set(repo.transitive_dependencies(repo.process("p2"))) == {
        EntityRef(C, "b"),
        EntityRef(F, "mid"),
        EntityRef(F, "out"),
        EntityRef(C, "a"),
    }
    assert repo.transitive_dependencies(repo.process("p2"))[:3] == (
        EntityRef(C, "b"),
        EntityRef(F, "mid"),
        EntityRef(F, "out"),
    )
    assert set(repo.transitive_dependents(repo.feed("raw"))) == {EntityRef(P, "p1")}
    assert set(repo.transitive_dependents(repo.cluster("a"))) == {
        EntityRef(F, "raw"),
        EntityRef(F, "mid"),
        EntityRef(P, "p1"),
        EntityRef(P, "p2"),
    }


def test_dangling_references_stay_in_the_graph(tmp_path):
    root = small_repo(
        tmp_path, **{"processes/p3.yaml": PROCESS.format(name="p3", cluster="c", input="gone", output="out")}
    )
    repo = ConfigRepo.load(root)
    assert EntityRef(F, "gone") in repo.dependencies(repo.process("p3"))
    assert repo.dependents(EntityRef(F, "gone")) == (EntityRef(P, "p3"),)
    assert repo.dependents(EntityRef(C, "c")) == (EntityRef(P, "p3"),)


def test_transitive_closure_terminates_on_a_cycle(tmp_path):
    root = small_repo(
        tmp_path, **{"processes/back.yaml": PROCESS.format(name="back", cluster="a", input="out", output="raw")}
    )
    repo = ConfigRepo.load(root)
    dependents = repo.transitive_dependents(repo.feed("raw"))
    assert EntityRef(P, "p1") in dependents and EntityRef(P, "back") in dependents
    assert EntityRef(F, "raw") not in dependents
    assert len(dependents) == len(set(dependents))


def test_load_raises_with_the_count_and_the_first_problem(tmp_path):
    root = small_repo(
        tmp_path / "conf",
        **{
            "feeds/zz.yaml": "kind: feed\nname: zz\n",
            "feeds/bad.yaml": FEED.format(name="bad", cluster="a").replace("hours(1)", "hourly"),
        },
    )
    with pytest.raises(UsageError) as raised:
        ConfigRepo.load(root)
    message = str(raised.value)
    assert message.startswith(f"Config repo {root}/ has 3 problems (run `toolkit lint {root}` to list them all); ")
    assert message.endswith(
        f"the first is {root}/feeds/bad.yaml:3:12: Feed 'bad': frequency is 'hourly', which is not valid: "
        "write minutes(n), hours(n), days(n) or months(n) with n a positive integer."
    )
    assert raised.value.exit_code == 2


def test_scan_keeps_going_past_bad_files(tmp_path):
    root = small_repo(
        tmp_path,
        **{
            "feeds/binary.yaml": b"\x00\x01\x02",
            "feeds/empty.yaml": "",
            "feeds/broken.yml": "kind: feed\nname: [\n",
            "processes/wrong.yaml": "- a list\n",
        },
    )
    repo, problems = ConfigRepo.scan(root)
    assert sorted(repo.feeds) == ["mid", "out", "raw"] and sorted(repo.processes) == ["p1", "p2"]
    assert sorted((p.file.name, p.code) for p in problems) == [
        ("binary.yaml", "YM001"),
        ("broken.yml", "YM002"),
        ("empty.yaml", "YM004"),
        ("wrong.yaml", "YM005"),
    ]


def test_only_yaml_files_of_the_kind_folders_are_read(tmp_path):
    root = write_files(
        tmp_path,
        {
            "clusters/a.yml": CLUSTER.format(name="a"),
            "clusters/README.md": "# not an entity",
            "clusters/.b.yaml": "not: [valid",
            "clusters/nested/c.yaml": CLUSTER.format(name="c"),
            "workflows/x.yaml": "not: [valid",
        },
    )
    repo, problems = ConfigRepo.scan(root)
    assert problems == []
    assert list(repo.clusters) == ["a"]


def test_an_entity_is_filed_under_its_kind_and_keeps_its_folder(tmp_path):
    root = write_files(tmp_path, {"clusters/misplaced.yaml": FEED.format(name="clicks", cluster="a")})
    repo = ConfigRepo.load(root)
    feed = repo.feed("clicks")
    assert (feed.folder, feed.file_stem) == ("clusters", "misplaced")
    assert repo.clusters == {}


def test_duplicate_names(tmp_path):
    root = small_repo(tmp_path, **{"feeds/raw-copy.yaml": FEED.format(name="raw", cluster="b")})
    repo, problems = ConfigRepo.scan(root)
    assert problems == []
    [group] = repo.duplicates()
    assert [entity.file_stem for entity in group] == ["raw-copy", "raw"]
    assert repo.feed("raw").file_stem == "raw-copy"
    with pytest.raises(UsageError, match=r"defines feed 'raw' more than once, in .*raw-copy.yaml and .*raw.yaml"):
        ConfigRepo.load(root)


def test_not_a_repo(tmp_path):
    with pytest.raises(UsageError, match="does not exist"):
        ConfigRepo.load(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="is not a config repo: it has none of the folders clusters/, feeds/"):
        ConfigRepo.scan(tmp_path / "empty")
    (tmp_path / "file.yaml").write_text("kind: feed\n")
    with pytest.raises(UsageError, match="is not a config repo"):
        ConfigRepo.load(tmp_path / "file.yaml")


def test_repo_root_of_a_file_or_folder(tmp_path):
    root = small_repo(tmp_path / "conf")
    assert find_repo_root(root / "feeds" / "raw.yaml") == root
    assert find_repo_root(root / "feeds") == root
    assert find_repo_root(root) == root
    assert find_repo_root(tmp_path) is None
    assert is_config_repo(root) and not is_config_repo(root / "feeds")


def test_the_entity_files_are_the_yaml_files_of_the_kind_folders_by_kind_then_name(tmp_path):
    root = small_repo(tmp_path / "conf")
    feeds = root / "feeds"
    (feeds / ".hidden.yaml").write_text("kind: feed\n")  # an editor's or a tool's: skipped
    (feeds / "notes.txt").write_text("not an entity\n")
    (feeds / "a-folder.yaml").mkdir()  # named like a file, not one
    (feeds / "extra.yml").write_text((feeds / "raw.yaml").read_text().replace("name: raw", "name: extra"))
    (feeds / "linked.yaml").symlink_to(feeds / "out.yaml")  # a link to a file is a file, as before
    (feeds / "dangling.yaml").symlink_to(feeds / "gone.yaml")  # a link to nothing is not
    names = [f"{file.parent.name}/{file.name}" for file in entity_files(root)]
    assert names == ["clusters/a.yaml", "clusters/b.yaml", "feeds/extra.yml", "feeds/linked.yaml", "feeds/mid.yaml",
                     "feeds/out.yaml", "feeds/raw.yaml", "processes/p1.yaml", "processes/p2.yaml"]
    assert all(file.is_absolute() == root.is_absolute() and file.parent.parent == root for file in entity_files(root))
