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
    left = []
    for candidate in path.parent.glob(f"{glob.escape(prefix)}*.tmp"):
        pid, dot, _ = candidate.name[len(prefix):].partition(".")
        if dot and pid.isdigit() and candidate.is_file() and not candidate.is_symlink() and not running(int(pid)):
            left.append(candidate)
    remove_left(left, "toolkit", f" {path}")


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
