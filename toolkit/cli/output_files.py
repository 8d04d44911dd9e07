"""Files the `toolkit` command writes for the user (schemas, graph pages, status pages): checked before anything is
written, and written under a temporary name then renamed, so a reader never sees half a file. A call killed between
the two leaves its temporary file (`.<name>.<pid>.<random>.tmp`); the next call that writes the same file removes
those whose writer is no longer running, and says so on stderr."""

from __future__ import annotations

import glob
import os
import sys
import tempfile
from pathlib import Path

from toolkit.errors import UsageError


def write_atomically(path: Path, text: str) -> None:
    """`text` into `path` (UTF-8), replacing it in one rename; the temporary file is removed on failure. The
    file gets the permissions of any file the user creates (mkstemp's are private to the owner)."""
    remove_left_by_dead_writers(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")
    try:
        os.chmod(temporary, 0o666 & ~_umask())
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def remove_left_by_dead_writers(path: Path) -> None:
    """Remove the temporary files of `path` (plain files named as `write_atomically` names them) whose writer is no
    longer running: a call killed before its rename."""
    prefix = f".{path.name}."
    for left in path.parent.glob(f"{glob.escape(prefix)}*.tmp"):
        pid, dot, _ = left.name[len(prefix):].partition(".")
        if not (dot and pid.isdigit()) or running(int(pid)) or left.is_symlink() or not left.is_file():
            continue
        try:
            left.unlink(missing_ok=True)
        except OSError as err:
            print(f"toolkit: could not remove {left}, the temporary file of a call killed while writing {path}: "
                  f"{err.strerror or err}", file=sys.stderr)
            continue
        print(f"toolkit: removed {left}, the temporary file of a call killed while writing {path}", file=sys.stderr)


def running(pid: int) -> bool:
    """Whether a process `pid` runs on this host (another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
