"""`toolkit schedule --install-crontab`: the generated block merged into the user's crontab, never replacing it.

The user's crontab is read with `crontab -l` and written back with `crontab -` (the program named by
FEED_TOOLKIT_CRONTAB, default `crontab` on the PATH). The block of the same cluster, between its BEGIN and END
markers, is taken out wherever it is and the new one is added at the end: the block sets SHELL, CRON_TZ and its
path variables, which cron applies to every line after them, so the user's own lines stay above it, untouched.

Untouched means byte for byte: cron reads bytes and ends a line at a line feed only, so the crontab is read and
written as bytes, its lines split at `\n` alone (a CR is a character of a command: text mode's universal newlines
made it a line break, and what followed it an entry of its own), and bytes that are not UTF-8 (`caf\xe9` in Latin-1)
go through as they came (`surrogateescape`)."""

from __future__ import annotations

import os
import re
import subprocess

from toolkit.errors import ToolkitError, UsageError
from toolkit.orchestration.schedule.formats.crontab import begin_marker, end_marker

CRONTAB_VARIABLE = "FEED_TOOLKIT_CRONTAB"
_ENCODING, _KEEP_BYTES = "utf-8", "surrogateescape"  # a byte that is not UTF-8 read as a lone surrogate, written back


class CrontabError(ToolkitError):
    """The user's crontab could not be read or written (exit 1)."""


def install(block: str, cluster: str) -> str:
    """Merge `block` (cluster's generated crontab) into the user's crontab; a sentence saying what was done."""
    current = _read()
    kept, replaced = without_block(current, cluster)
    merged = (kept.rstrip("\n") + "\n\n" if kept.strip() else "") + block
    if merged == current:
        return f"the crontab's block of cluster '{cluster}' is up to date; nothing written."
    _write(merged)
    verb = "replaced" if replaced else "added"
    return (f"{verb} the block of cluster '{cluster}' ({block.count(chr(10))} lines) in this user's crontab; "
            f"its other {len(_lines(kept))} line(s) kept.")


def without_block(text: str, cluster: str) -> tuple[str, bool]:
    """`text` without the block of `cluster` (markers included); whether there was one. A BEGIN without its END is
    refused: the user's lines after it cannot be told from the block's."""
    lines = _lines(text)
    begin, end = begin_marker(cluster), end_marker(cluster)
    starts = [index for index, line in enumerate(lines) if line.rstrip("\n") == begin]
    if not starts:
        return text, False
    first = starts[0]
    ends = [index for index, line in enumerate(lines) if index > first and line.rstrip("\n") == end]
    if not ends:
        raise UsageError(f"This user's crontab has '{begin}' on line {first + 1} but no '{end}' after it: put the "
                         "END line back where the block ends (crontab -e), then install again.")
    rest = lines[:first] + lines[ends[0] + 1:]
    remaining, _ = without_block("".join(rest), cluster)  # a block pasted twice goes too
    return remaining, True


def _lines(text: str) -> list[str]:
    """cron's lines, each with its `\n`: ended by a line feed only (Python's splitlines ends one at a CR too)."""
    return [line for line in re.split(r"(?<=\n)", text) if line]


def _program() -> str:
    return os.environ.get(CRONTAB_VARIABLE) or "crontab"


def _read() -> str:
    try:
        listed = subprocess.run([_program(), "-l"], capture_output=True, timeout=60)
    except OSError as err:
        raise CrontabError(f"Cannot run '{_program()} -l' ({err.strerror}): install cron, or name the crontab "
                           f"program in {CRONTAB_VARIABLE}.") from None
    if listed.returncode == 0:
        return listed.stdout.decode(_ENCODING, _KEEP_BYTES)
    said = _said(listed.stderr)
    if "no crontab" in said.lower():
        return ""
    raise CrontabError(f"'{_program()} -l' failed (exit {listed.returncode}): {said}; nothing was written.")


def _write(text: str) -> None:
    try:
        written = subprocess.run([_program(), "-"], input=text.encode(_ENCODING, _KEEP_BYTES), capture_output=True,
                                 timeout=60)
    except OSError as err:
        raise CrontabError(f"Cannot run '{_program()} -' ({err.strerror}): nothing was written.") from None
    if written.returncode != 0:
        raise CrontabError(f"'{_program()} -' refused the merged crontab (exit {written.returncode}): "
                           f"{_said(written.stderr)}; the crontab is as it was.")


def _said(stderr: bytes) -> str:
    """crontab's message, for a sentence: a byte that is not UTF-8 shown as U+FFFD."""
    return stderr.decode(_ENCODING, "replace").strip()
