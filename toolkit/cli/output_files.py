"""Files the `toolkit` command writes for the user (schemas, graph pages): checked before anything is written,
and written under a temporary name then renamed, so a reader never sees half a file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from toolkit.errors import UsageError


def write_atomically(path: Path, text: str) -> None:
    """`text` into `path` (UTF-8), replacing it in one rename; the temporary file is removed on failure. The
    file gets the permissions of any file the user creates (mkstemp's are private to the owner)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.chmod(temporary, 0o666 & ~_umask())
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def check_output_file(path: Path, option: str) -> None:
    """UsageError naming `option` and the path when `path` cannot be a file written here: its folder must exist
    and it must not be a folder."""
    if path.is_dir():
        raise UsageError(f"{option} {path} is a folder: give the path of a file to write.")
    if not path.parent.is_dir():
        raise UsageError(f"{option} {path}: the folder {path.parent} does not exist; create it or give another path.")


def _umask() -> int:
    """The process's umask (reading it means setting it, so it is set back at once)."""
    current = os.umask(0o022)
    os.umask(current)
    return current
