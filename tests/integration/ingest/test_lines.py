"""Landing files become lines with their byte offsets (core/storage/landing_lines.py and jvm/LandingLines.java): LF and
CRLF ends, a final line end, blank lines, an empty file; a file cut into splits of any size reads the same lines
once each; a range from an offset and up to a length reads only those bytes; names that Hadoop's Path mangles."""

from __future__ import annotations

from pathlib import Path

from chispa import assert_df_equality
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyspark.sql import SparkSession

from toolkit.core.storage.landing_lines import LineRange, read_lines, tail_fingerprints

LINES = "value string, file string, offset long, line long"


def _expected(data: bytes, uri: str, start: int = 0, numbered: bool = True) -> list[tuple]:
    """The lines of data[start:] as the contract says, computed in Python."""
    rows, offset, number = [], start, 1
    body = data[start:]
    parts = body.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    for part in parts:
        text = part[:-1] if part.endswith(b"\r") else part
        rows.append((text.decode("utf-8", "replace"), uri, offset, number if numbered else None))
        offset += len(part) + 1
        number += 1
    return rows


def _write(folder: Path, name: str, data: bytes) -> str:
    (folder / name).write_bytes(data)
    return f"file://{folder}/{name}"


def test_lines_keep_offsets_and_numbers_and_the_final_line_end_is_no_line(spark: SparkSession,
                                                                         tmp_path: Path) -> None:
    files = {"f1": b"a\nb\n", "f2": b"c\r\nd", "f3": b"", "f4": b"x\n\ny\r\n"}
    uris = {name: _write(tmp_path, name, data) for name, data in files.items()}
    found = read_lines(spark, [LineRange(uris[n], 0, len(d)) for n, d in files.items()], split_bytes=1 << 20,
                       max_line_bytes=1000)
    expected = [("a", uris["f1"], 0, 1), ("b", uris["f1"], 2, 2), ("c", uris["f2"], 0, 1), ("d", uris["f2"], 3, 2),
                ("x", uris["f4"], 0, 1), ("", uris["f4"], 2, 2), ("y", uris["f4"], 3, 3)]
    assert_df_equality(found, spark.createDataFrame(expected, LINES), ignore_row_order=True, ignore_nullable=True)


def test_a_range_reads_from_its_start_to_its_end_and_not_the_bytes_appended_after(spark: SparkSession,
                                                                                  tmp_path: Path) -> None:
    """What an append leaves: bytes [6, 12) of a file that has grown to 18 since it was listed at 12."""
    uri = _write(tmp_path, "grown.csv", b"one,1\ntwo,2\nthree\n")
    found = read_lines(spark, [LineRange(uri, 6, 12)], split_bytes=1 << 20, max_line_bytes=1000)
    assert_df_equality(found, spark.createDataFrame([("two,2", uri, 6, None)], LINES), ignore_nullable=True)


def test_names_with_colons_spaces_hashes_percents_unicode_and_a_leading_dash_are_read(spark: SparkSession,
                                                                                     tmp_path: Path) -> None:
    names = ["views-2026-01-01T10:00:00.csv", "a b.csv", "#1.csv", "50%.csv", "données-é.csv", "-x.csv"]
    ranges = [LineRange(_write(tmp_path, name, f"{name}\n".encode()), 0, len(name.encode()) + 1) for name in names]
    found = read_lines(spark, ranges, split_bytes=1 << 20, max_line_bytes=1000)
    expected = [(name, r.uri, 0, 1) for name, r in zip(names, ranges, strict=True)]
    assert_df_equality(found, spark.createDataFrame(expected, LINES), ignore_row_order=True, ignore_nullable=True)
    assert not list(tmp_path.glob(".*.crc")), "the raw local file system writes and reads no .crc side files"


def test_a_symbolic_link_swapped_in_after_the_listing_is_not_followed(spark: SparkSession, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("password\n")
    (tmp_path / "views.csv").symlink_to(secret)
    lines = read_lines(spark, [LineRange(f"file://{tmp_path}/views.csv", 0, 9)], split_bytes=1 << 20,
                       max_line_bytes=1000)
    try:
        rows = lines.collect()
    except Exception as err:  # the read fails: what matters is that the secret is not read
        assert "password" not in str(err)
    else:
        raise AssertionError(f"a link was followed: {rows}")


_CONTENT = st.lists(st.sampled_from(["a", "bc", "é", "\r", "\n", "\r\n", "xyzxyz", ""]), max_size=60).map(
    lambda parts: "".join(parts).encode())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_CONTENT, split=st.integers(1, 40), cut=st.integers(0, 80))
def test_any_split_size_reads_each_line_once_with_its_offset(spark: SparkSession, tmp_path: Path, data: bytes,
                                                             split: int, cut: int) -> None:
    """From a line start `start` (0, or just after a \\n), the range's lines are the same whatever the splits."""
    uri = _write(tmp_path, "f.txt", data)
    starts = [0] + [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
    start = starts[cut % len(starts)]
    found = read_lines(spark, [LineRange(uri, start, len(data))], split_bytes=split, max_line_bytes=1000)
    expected = _expected(data, uri, start, numbered=start == 0)
    got = [tuple(row) for row in sorted(found.collect(), key=lambda row: row[2])]
    assert [row[:3] for row in got] == [row[:3] for row in expected]
    # a number, where one is given (the first split of a file read from its start), is the line's own
    assert all(row[3] in (None, want[3]) for row, want in zip(got, expected, strict=True))
    assert not got or start > 0 or got[0][3] == 1


def test_the_tail_fingerprint_tells_an_append_from_a_new_file(spark: SparkSession, tmp_path: Path) -> None:
    uri = _write(tmp_path, "views.csv", b"one\ntwo\n")
    first = tail_fingerprints(spark, [(uri, 8)])
    (tmp_path / "views.csv").write_bytes(b"one\ntwo\nthree\n")
    appended = tail_fingerprints(spark, [(uri, 8)])
    (tmp_path / "views.csv").write_bytes(b"new\nfile\nhere\n")
    replaced = tail_fingerprints(spark, [(uri, 8), (uri, 100), (f"file://{tmp_path}/gone", 1)])
    assert first == appended and first[0] != ""
    assert replaced[0] != first[0] and replaced[1:] == ["", ""]
