"""Files the `toolkit` command writes for the user (schemas, graph pages, status pages): checked before anything is
written, and written under a temporary name then renamed, so a reader never sees half a file
(toolkit/core/storage/local_files.py). A call killed between the two leaves its temporary file
(`.<name>.<pid>.<random>.tmp`); the next call that writes the same file removes those whose writer is no longer
running, and says so on stderr."""

from __future__ import annotations

import sys
from pathlib import Path

from toolkit.core.storage.local_files import left_by_dead_writers, replace_file
from toolkit.errors import UsageError


def write_atomically(path: Path, text: str) -> None:
    """`text` into `path` (UTF-8), replacing it in one rename (toolkit/core/storage/local_files.py: never through a link
    at the temporary name, a link at `path` replaced), once the temporary files of dead writers are removed."""
    remove_left(left_by_dead_writers(path), "toolkit", f" {path}")
    replace_file(path, text.encode("utf-8"))


def remove_left(left: list[Path], speaker: str, writing: str = "") -> None:
    """Remove each of `left` (temporary files of killed writers), saying so on stderr as `speaker` (`writing`: what
    they were writing, when the sentence should name it); a file that cannot be removed is said too, and left."""
    for path in left:
        said = f"{path}, the temporary file of a call killed while writing{writing}"
        try:
            path.unlink(missing_ok=True)
        except OSError as err:
            print(f"{speaker}: could not remove {said}: {err.strerror or err}", file=sys.stderr)
            continue
        print(f"{speaker}: removed {said}", file=sys.stderr)


def check_output_file(path: Path, option: str) -> None:
    """UsageError naming `option` and the path when `path` cannot be a file written here: its folder must exist
    and it must not be a folder."""
    if path.is_dir():
        raise UsageError(f"{option} {path} is a folder: give the path of a file to write.")
    if not path.parent.is_dir():
        raise UsageError(f"{option} {path}: the folder {path.parent} does not exist; create it or give another path.")
