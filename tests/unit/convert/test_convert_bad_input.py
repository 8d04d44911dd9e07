"""Input `toolkit convert-falcon` cannot convert, and targets it must not overwrite: exit 2 with one sentence
naming the file (and the line), no traceback, and nothing written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.unit.convert.conftest import FALCON, Run

FEED = FALCON / "raw-clicks-feed.xml"

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE feed [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<feed name="lol" xmlns="uri:falcon:feed:0.1"><frequency>&lol3;</frequency></feed>
"""


def assert_one_sentence(code: int, out: str, err: str, *mentions: str) -> None:
    assert (code, out) == (2, "")
    assert err.startswith("toolkit: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for mention in mentions:
        assert mention in err, err


@pytest.mark.parametrize(
    ("content", "mention"),
    [
        (b'<feed name="x" xmlns="uri:falcon:feed:0.1">\n  <frequency>hours(1)</freq>\n</feed>\n',
         "is not well-formed XML at line 2, column 24 (mismatched tag): fix the XML there."),
        (b'<?xml version="1.0"?>\n<!-- an Oozie workflow -->\n<workflow-app xmlns="uri:oozie:workflow:0.5"/>',
         "has the root element <{uri:oozie:workflow:0.5}workflow-app> on line 3, which is not a Falcon cluster, "
         "feed, process or datasource: pass only Falcon entity definitions."),
        (b'<?xml version="1.0"?>\n<feed name="clicks"><frequency>hours(1)</frequency></feed>',
         'has the root element <feed> on line 2, which is not a Falcon cluster, feed, process or datasource (a '
         'Falcon feed is <feed xmlns="uri:falcon:feed:0.1">)'),
        (BILLION_LAUGHS, "has a DOCTYPE declaration on line 2, refused because its ENTITY declarations could expand "
                         "without bound: remove it (Falcon definitions need none)."),
        (b'<!DOCTYPE feed SYSTEM "file:///etc/passwd"><feed name="x" xmlns="uri:falcon:feed:0.1"/>',
         "has a DOCTYPE declaration on line 1"),
        (bytes(range(256)) * 4, "is a binary file, not XML (a NUL byte on line 1)"),
        (b"", "is empty (line 1): pass a Falcon cluster, feed, process or datasource XML file."),
        (b'<feed name="x" description="caf\xe9" xmlns="uri:falcon:feed:0.1"/>',
         "is not well-formed XML at line 1, column 32 (not well-formed (invalid token))"),
        (b'<?xml version="1.0" encoding="klingon"?><feed/>', "declares an encoding Python does not know on line 1"),
        (b'<feed xmlns="uri:falcon:feed:0.1">\n<frequency>hours(1)</frequency></feed>',
         "defines a feed without a name on line 1: give it a Falcon name"),
        (b'<?xml version="1.0"?>\n<cluster name="../../etc/cron.d/x" colo="c" xmlns="uri:falcon:cluster:0.1"/>',
         "defines a cluster named '../../etc/cron.d/x', which cannot be a file name, on line 2"),
        (b'<?xml version="2.0"?>\n<feed name="x" xmlns="uri:falcon:feed:0.1"/>',  # Python's parser takes it
         "cannot be checked against Falcon's schema feed-0.1.xsd, as lxml cannot read it (Unsupported version "
         "'2.0', line 1, column 20): fix the XML there."),
    ],
    ids=["malformed", "unknown-root", "no-namespace", "billion-laughs", "external-doctype", "binary", "empty",
         "latin-1-without-declaration", "unknown-encoding", "no-name", "unsafe-name", "xml-version-2"],
)
def test_unconvertible_file_is_one_sentence_with_its_line_and_nothing_is_written(
    convert: Run, tmp_path: Path, content: bytes, mention: str
) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_bytes(content)
    out = tmp_path / "conf"
    assert_one_sentence(*convert(FEED, bad, "--out", out), f"toolkit: {bad} ", mention)
    assert not out.exists()  # not even the good file before it


def test_unreadable_path(convert: Run, tmp_path: Path) -> None:
    assert_one_sentence(*convert(tmp_path / "missing.xml", "--out", tmp_path / "conf"),
                        f"Cannot read {tmp_path / 'missing.xml'}: No such file or directory")
    assert_one_sentence(*convert(tmp_path, "--out", tmp_path / "conf"), f"Cannot read {tmp_path}: Is a directory")


def test_an_existing_file_is_kept_unless_force(convert: Run, tmp_path: Path) -> None:
    out = tmp_path / "conf"
    target = out / "feeds" / "raw-clicks.yaml"
    target.parent.mkdir(parents=True)
    target.write_text("# mine\n", encoding="utf-8")
    assert_one_sentence(
        *convert(FALCON / "primary-cluster.xml", FEED, "--out", out),
        f"{target} already exists (converting {FEED}): pass --force to overwrite it, or choose another --out.",
    )
    assert target.read_text(encoding="utf-8") == "# mine\n"
    assert not (out / "clusters").exists()  # nothing is written when any target is taken

    code, out_text, err = convert(FALCON / "primary-cluster.xml", FEED, "--out", out, "--force")
    assert (code, err) == (0, "")
    assert target.read_text(encoding="utf-8").startswith("# yaml-language-server: $schema=../.schemas/feed.json\n")
    assert sorted(path.name for path in out.rglob("*")) == ["clusters", "feeds", "primary.yaml", "raw-clicks.yaml"]


def test_a_failed_rename_leaves_the_old_file_whole_and_no_temporary_file(
    convert: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "feeds" / "raw-clicks.yaml"
    target.parent.mkdir()
    target.write_text("# mine\n", encoding="utf-8")

    def failing_replace(source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> None:
        assert Path(source).read_text(encoding="utf-8").startswith("# yaml-language-server")  # fully written
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", failing_replace)
    assert_one_sentence(*convert(FEED, "--out", tmp_path, "--force"),
                        f"Cannot write {target}: Permission denied; choose an --out you can write to.")
    assert target.read_text(encoding="utf-8") == "# mine\n"
    assert [path.name for path in target.parent.iterdir()] == ["raw-clicks.yaml"]


def test_two_inputs_defining_the_same_entity(convert: Run, tmp_path: Path) -> None:
    copy = tmp_path / "copy.xml"
    copy.write_bytes(FEED.read_bytes())
    assert_one_sentence(*convert(FEED, copy, "--out", tmp_path / "conf"),
                        f"{FEED} and {copy} both define feed 'raw-clicks': pass only one of them.")
    assert not (tmp_path / "conf").exists()


def test_out_must_be_a_directory(convert: Run, tmp_path: Path) -> None:
    out = tmp_path / "conf"
    out.write_text("", encoding="utf-8")
    assert_one_sentence(*convert(FEED, "--out", out), f"--out {out} is a file")


def test_command_line_usage_errors_exit_2(convert: Run, tmp_path: Path) -> None:
    assert convert(FEED)[0] == 2  # no --out
    assert convert("--out", tmp_path)[0] == 2  # no file


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_link_where_a_kind_folder_goes_is_never_written_through(convert: Run, tmp_path: Path,
                                                                  force: list[str]) -> None:
    """--out is a config repo whose feeds/ is a link (a commit can hold one) to a folder elsewhere: nothing is
    written through it, nor anything at all, and the call names the link (exit 2)."""
    out, elsewhere = tmp_path / "conf", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "feeds").symlink_to(elsewhere)
    code, out_text, err = convert(FALCON / "primary-cluster.xml", FEED, "--out", out, *force)
    assert list(elsewhere.iterdir()) == []
    assert sorted(path.name for path in out.iterdir()) == ["feeds"]
    assert_one_sentence(code, out_text, err, f"{out / 'feeds'} is a symbolic link: converted entities are never "
                                             "written through one; remove it, or choose another --out.")


def test_a_link_to_nothing_where_a_file_would_go_is_refused_without_force(convert: Run, tmp_path: Path) -> None:
    """A dangling link is something there: converting over it without --force must refuse, as over a file."""
    out = tmp_path / "conf"
    (out / "clusters").mkdir(parents=True)
    link = out / "clusters" / "primary.yaml"
    link.symlink_to(tmp_path / "nowhere.yaml")
    code, out_text, err = convert(FALCON / "primary-cluster.xml", "--out", out)
    assert (code, out_text) == (2, "")
    assert f"{link} already exists" in err
    assert link.is_symlink() and not (tmp_path / "nowhere.yaml").exists()


def test_an_out_folder_that_is_a_link_to_nothing_is_refused_in_one_sentence(convert: Run, tmp_path: Path) -> None:
    out = tmp_path / "conf"
    out.symlink_to(tmp_path / "gone")
    code, _, err = convert(FALCON / "primary-cluster.xml", "--out", out)
    assert code == 2
    assert err == (f"toolkit: --out {out} is a symbolic link to nothing: give the directory of a config repo (it is "
                   "created if missing).\n")
