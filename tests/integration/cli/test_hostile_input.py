"""Hostile files fed to the real `toolkit lint`, `toolkit plan` and `toolkit convert-falcon` processes, each under a
1.5 GiB address-space limit and a 30 s timeout: deep nesting, alias, merge and entity bombs, text repeated by aliases,
external entities, random bytes, invalid UTF-8 and 5 MB files all end with exit 1 or 2 and one-line messages, never a
crash or a traceback (a segmentation fault or a quadratic walk is only seen from outside the process)."""

from __future__ import annotations

import os
import random
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.cli.test_plan_git import git
from tests.unit.retention.retention_repo import make_repo

MEMORY = 3 * 2**29  # 1.5 GiB of address space
SECONDS = 30
DEPTH = 50_000
FIVE_MB = 5 * 2**20
FEED_NS = b'xmlns="uri:falcon:feed:0.1"'
PROBLEM_LINE = re.compile(r"^\S+:\d+:\d+: [A-Z]{2}\d{3} \S.*$")


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def toolkit(*argv: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolkit", *map(str, argv)], capture_output=True, text=True,
                          timeout=SECONDS, preexec_fn=_limit_memory)


def _yaml_laughs() -> bytes:
    """YAML's "billion laughs": nine levels of aliases, each nine times the one before."""
    lines = [b"kind: feed", b"name: f", b"a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [b"a%d: &a%d [%s]" % (i, i, b", ".join([b"*a%d" % (i - 1)] * 9)) for i in range(1, 10)]
    return b"\n".join(lines) + b"\n"


def _merge_bomb() -> bytes:
    """Nine levels of `<<` merges, each of ten merges of the level below: under 700 bytes, 10**9 merges."""
    lines = [b"kind: feed", b"name: f", b"m0: &m0 {k0: 1}"]
    lines += [b"m%d: &m%d {<<: [%s], k%d: 1}" % (i, i, b", ".join([b"*m%d" % (i - 1)] * 10), i) for i in range(1, 10)]
    return b"\n".join(lines) + b"\n"


def _nested(levels: int, shape: str, block: bool) -> bytes:
    """A feed whose tag `owner` nests `levels` mappings (m), sequences (s) or both (ms), in block or flow style."""
    head = "kind: feed\nname: f\ntags:\n"
    if block and shape == "m":
        return (head + "".join(" " * (2 * level + 2) + "a:\n" for level in range(levels)) + " " * (2 * levels + 2)
                + "1\n").encode()
    if block and shape == "s":
        return (head + "  owner:\n    " + "- " * levels + "1\n").encode()
    kinds = (shape * levels)[:levels]
    opens, closes = ("".join(("{a: " if kind == "m" else "[") for kind in kinds),
                     "".join(("}" if kind == "m" else "]") for kind in reversed(kinds)))
    return (head + "  owner: " + opens + "1" + closes + "\n").encode()


def _empty_merge_bomb() -> bytes:
    """Forty levels, each merging the one below twice, from an empty mapping: 1,155 bytes, 2**40 merges of nothing."""
    lines = [b"kind: feed", b"name: f", b"e0: &e0 {}"]
    lines += [b"e%d: &e%d {<<: [*e%d, *e%d]}" % (i, i, i - 1, i - 1) for i in range(1, 41)]
    return b"\n".join(lines) + b"\n"


def _repeated(entry: bytes, times: int, aliases: int) -> bytes:
    """A mapping of `entry` written `times` times, aliased `aliases` times."""
    return (b"kind: feed\nname: f\ne: &e {}\nd: &a {" + b", ".join([entry] * times) + b"}\nl: ["
            + b", ".join([b"*a"] * aliases) + b"]\n")


def _aliased_text(times: int) -> bytes:
    """A feed whose description of 1,000,000 characters `times` properties repeat by alias."""
    return (b"kind: feed\nname: f\ndescription: &s " + b"x" * 1_000_000 + b"\nproperties:\n"
            + b"".join(b"  p%d: *s\n" % index for index in range(times)))


TOO_MANY_VALUES = "YM006 The YAML expands to more than 250,000 values (aliases or `<<` merges); simplify it."
TOO_DEEP = "YM006 The YAML is nested more than 50 levels deep"
LINT_CASES = {
    "deep-flow": (b"kind: feed\nname: f\nx: " + b"[" * DEPTH + b"]" * DEPTH + b"\n", TOO_DEEP),
    "deep-block": (b"kind: feed\nname: f\nx:\n" + b"- " * DEPTH + b"a\n", TOO_DEEP),
    "deep-mapping": (b"kind: feed\nname: f\n" + b"{a: " * DEPTH + b"1" + b"}" * DEPTH + b"\n",
                     "YM002 YAML syntax error while scanning a simple key"),  # libyaml: keys end within 1024 chars
    "deep-keys": (b"kind: feed\nname: f\n" + b"? " * DEPTH + b"a\n", TOO_DEEP),
    "billion-laughs": (_yaml_laughs(), "YM006 The YAML expands to more than 250,000 values"),
    "merge-bomb": (_merge_bomb(), TOO_MANY_VALUES),
    "empty-merge-bomb": (_empty_merge_bomb(), TOO_MANY_VALUES),
    "merge-key-repeated": (_repeated(b"<<: *e", 2_000, 2_000), TOO_MANY_VALUES),
    "duplicate-keys-aliased": (_repeated(b"x: 1", 5_000, 5_000), TOO_MANY_VALUES),
    "text-aliased": (_aliased_text(600), "characters of text (aliases or `<<` merges); simplify it."),
    "nested-500-mappings": (_nested(500, "m", block=True), TOO_DEEP),
    "nested-500-sequences": (_nested(500, "s", block=True), TOO_DEEP),
    "nested-500-mixed": (_nested(500, "ms", block=False), TOO_DEEP),
    "nested-5000-mappings": (_nested(5_000, "m", block=False), TOO_DEEP),
    "nested-5000-sequences": (_nested(5_000, "s", block=True), TOO_DEEP),
    "nested-5000-mixed": (_nested(5_000, "ms", block=False), TOO_DEEP),
    "5mb-list": (b"kind: feed\nname: f\nx: [" + b"1," * (FIVE_MB // 2) + b"1]\n",
                 "YM006 The YAML holds more than 250,000 values"),
    "5mb-text": (b"kind: feed\nname: f\ndescription: " + b"a" * FIVE_MB + b"\n", "SC001 Feed 'f'"),
    "5mb-random-bytes": (random.Random(14).randbytes(FIVE_MB), "YM001 The file is binary"),
    "invalid-utf-8": (b"kind: feed\nname: caf\xe9\n", "YM001 The file is not UTF-8 text (byte 0xe9 here)"),
}


@pytest.mark.parametrize("name", LINT_CASES)
def test_lint_of_a_hostile_file_is_problems_and_exit_1(name: str, tmp_path: Path) -> None:
    content, mention = LINT_CASES[name]
    (tmp_path / "feeds").mkdir()
    (tmp_path / "feeds" / "f.yaml").write_bytes(content)
    result = toolkit("lint", tmp_path)
    assert result.returncode == 1, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr
    lines = result.stdout.splitlines()
    assert lines and all(PROBLEM_LINE.match(line) for line in lines), result.stdout[:2000]
    assert any(mention in line for line in lines), result.stdout[:2000]
    assert result.stderr.count("\n") == 1 and "file(s) checked" in result.stderr


def test_lint_reports_each_duplicate_key_once_however_often_aliases_reach_it(tmp_path: Path) -> None:
    (tmp_path / "feeds").mkdir()
    (tmp_path / "feeds" / "f.yaml").write_bytes(_repeated(b"x: 1", 5_000, 5_000))
    result = toolkit("lint", tmp_path)
    lines = result.stdout.splitlines()
    assert [line for line in lines if TOO_MANY_VALUES in line] == [f"{tmp_path / 'feeds' / 'f.yaml'}:4:4: "
                                                                   f"{TOO_MANY_VALUES}"]
    assert [line for line in lines if TOO_MANY_VALUES not in line] == [
        f"{tmp_path / 'feeds' / 'f.yaml'}:4:{8 + 6 * index}: YM003 Duplicate key 'd.x' (first written at line 4); keep "
        "only one of them." for index in range(1, 5_000)]


def test_plan_of_text_repeated_by_aliases_is_one_sentence_and_caches_little(tmp_path: Path) -> None:
    """The reviewer's repo: a process of the template whose 1 MB description 600 properties repeat by alias made
    `toolkit plan --offline` (pre-commit's) take 1.8 GB and write 574 MB into its parse cache."""
    work = tmp_path / "work"
    work.mkdir()
    make_repo(work)
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "conf")
    git(work, "commit", "-q", "-m", "base")
    process = work / "conf" / "processes" / "top-pages.yaml"
    text = re.sub(r"^description: .*$", "description: &s " + "x" * 1_000_000, process.read_text(), count=1,
                  flags=re.M)
    text += "properties:\n" + "".join(f"  p{index}: *s\n" for index in range(600))
    process.write_text(text)
    cache = tmp_path / "cache"
    result = subprocess.run([sys.executable, "-m", "toolkit", "plan", "--base", "main", "--repo", "conf", "--offline",
                             "--now", "2026-06-01T00:00Z"], capture_output=True, text=True, timeout=SECONDS,
                            preexec_fn=_limit_memory, cwd=work,
                            env={**os.environ, "FEED_TOOLKIT_CACHE_DIR": str(cache),
                                 "GIT_CEILING_DIRECTORIES": str(tmp_path)})
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert result.stderr.startswith("toolkit: The working tree of conf does not load") and result.stderr.endswith(
        f"the first is conf/processes/top-pages.yaml:4:14: The YAML expands to more than {2**20 + 4 * len(text):,} "
        "characters of text (aliases or `<<` merges); simplify it.\n"), result.stderr[-2000:]
    assert sum(file.stat().st_size for file in cache.rglob("*") if file.is_file()) < 2**20


def _entities(levels: int) -> bytes:
    declarations = [b'<!ENTITY lol0 "lol">']
    declarations += [b'<!ENTITY lol%d "%s">' % (i, b"&lol%d;" % (i - 1) * 10) for i in range(1, levels)]
    return b"\n".join(declarations)


CONVERT_REFUSED = {
    "billion-laughs": (b'<?xml version="1.0"?>\n<!DOCTYPE feed [\n' + _entities(10) + b"\n]>\n<feed name=\"x\" "
                       + FEED_NS + b"><frequency>&lol9;</frequency></feed>\n",
                       "has a DOCTYPE declaration on line 2"),
    "external-entity": (b'<?xml version="1.0"?>\n<!DOCTYPE feed [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
                        b'<feed name="x" ' + FEED_NS + b"><frequency>&xxe;</frequency></feed>\n",
                        "has a DOCTYPE declaration on line 2"),
    "external-dtd": (b'<!DOCTYPE feed SYSTEM "http://127.0.0.1:9/falcon.dtd"><feed name="x" ' + FEED_NS + b"/>",
                     "has a DOCTYPE declaration on line 1"),
    "parameter-entity": (b'<!DOCTYPE feed [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]><feed/>',
                         "has a DOCTYPE declaration on line 1"),
    "5mb-random-bytes": (random.Random(14).randbytes(FIVE_MB), "is a binary file, not XML"),
    "5mb-unclosed": (b'<feed name="x" ' + FEED_NS + b">" + b"<u>" * (FIVE_MB // 3),
                     "is not well-formed XML"),
}


@pytest.mark.parametrize("name", CONVERT_REFUSED)
def test_convert_of_hostile_xml_is_one_sentence_and_exit_2(name: str, tmp_path: Path) -> None:
    content, mention = CONVERT_REFUSED[name]
    source = tmp_path / "hostile.xml"
    source.write_bytes(content)
    result = toolkit("convert-falcon", source, "--out", tmp_path / "conf")
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert result.stderr.startswith(f"toolkit: {source} {mention}") and result.stderr.count("\n") == 1, \
        result.stderr[-2000:]
    assert not (tmp_path / "conf").exists()


CONVERT_REPORTED = {
    "5mb-unknown-elements": b'<feed name="x" ' + FEED_NS + b">" + b"<u/>" * (FIVE_MB // 4) + b"</feed>",
    "5mb-repeated-element": b'<feed name="x" ' + FEED_NS + b">" + b"<frequency>hours(1)</frequency>" * (FIVE_MB // 31)
                            + b"</feed>",
    "deep-unknown": b'<feed name="x" ' + FEED_NS + b">" + b"<u>" * DEPTH + b"</u>" * DEPTH + b"</feed>",
    "5mb-text": b'<feed name="x" ' + FEED_NS + b"><description>" + b"a" * FIVE_MB + b"</description></feed>",
}


@pytest.mark.parametrize("name", CONVERT_REPORTED)
def test_convert_of_a_huge_or_deep_falcon_file_reports_and_exits_1(name: str, tmp_path: Path) -> None:
    source = tmp_path / "hostile.xml"
    source.write_bytes(CONVERT_REPORTED[name])
    result = toolkit("convert-falcon", source, "--out", tmp_path / "conf")
    assert result.returncode == 1, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr
    *reports, summary = result.stderr.splitlines()
    assert summary.startswith("toolkit: ") and summary.endswith("fix or redo them by hand."), summary
    assert len(reports) <= 1_000 + 3  # the first thousand, then the count: no flood of a million lines
    assert all(line.startswith(str(source)) or "SC001" in line for line in reports), reports[:5]
    if name in ("5mb-unknown-elements", "5mb-repeated-element"):  # the first thousand, then the count of the rest
        converted = name == "5mb-repeated-element"  # the first <frequency>
        unlisted = len(re.findall(b"<u/>|<frequency>", CONVERT_REPORTED[name])) - converted - 1_000
        expected = f"{source}: {unlisted:,} more things were not converted and are not listed (only the first 1,000"
        assert any(line.startswith(expected) for line in reports), reports[-3:]
