"""`toolkit schedule --install-crontab`: the generated block merged into the user's crontab, never replacing it.

The user's crontab is read with `crontab -l` and written back with `crontab -` (the program named by
FEED_TOOLKIT_CRONTAB, default `crontab` on the PATH). The block of the same cluster, between its BEGIN and END
markers, is taken out wherever it is and the new one is added at the end: the block sets SHELL, CRON_TZ and its
path variables, which cron applies to every line after them, so the user's own lines stay above it, untouched."""

from __future__ import annotations

import os
import re
import subprocess

from toolkit.errors import ToolkitError, UsageError
from toolkit.schedule.formats.crontab import begin_marker, end_marker

CRONTAB_VARIABLE = "FEED_TOOLKIT_CRONTAB"


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
            f"its other {len(kept.splitlines())} line(s) kept.")


def without_block(text: str, cluster: str) -> tuple[str, bool]:
    """`text` without the block of `cluster` (markers included); whether there was one. A BEGIN without its END is
    refused: the user's lines after it cannot be told from the block's."""
    lines = [line for line in re.split(r"(?<=\n)", text) if line]  # cron's lines: ended by \n only
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


def _program() -> str:
    return os.environ.get(CRONTAB_VARIABLE) or "crontab"


def _read() -> str:
    try:
        listed = subprocess.run([_program(), "-l"], capture_output=True, text=True, timeout=60)
    except OSError as err:
        raise CrontabError(f"Cannot run '{_program()} -l' ({err.strerror}): install cron, or name the crontab "
                           f"program in {CRONTAB_VARIABLE}.") from None
    if listed.returncode == 0:
        return listed.stdout
    if "no crontab" in listed.stderr.lower():
        return ""
    raise CrontabError(f"'{_program()} -l' failed (exit {listed.returncode}): {listed.stderr.strip()}; nothing was "
                       "written.")


def _write(text: str) -> None:
    try:
        written = subprocess.run([_program(), "-"], input=text, capture_output=True, text=True, timeout=60)
    except OSError as err:
        raise CrontabError(f"Cannot run '{_program()} -' ({err.strerror}): nothing was written.") from None
    if written.returncode != 0:
        raise CrontabError(f"'{_program()} -' refused the merged crontab (exit {written.returncode}): "
                           f"{written.stderr.strip()}; the crontab is as it was.")
