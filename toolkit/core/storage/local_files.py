"""A file on this machine that a command writes where the user or the repo names it (a page, a schema, the metrics'
textfile, a generated schedule, a converted entity, a status file): the one writer of them all.

The text goes into a temporary file beside the target, `.<name>.<pid>.<random>.tmp`, created by `mkstemp`
(O_CREAT|O_EXCL|O_NOFOLLOW): a link or a file planted at that name is never opened, so never written through, and
the random part makes the name unguessable. The file is then renamed over the target, so a reader sees the old file
or the new one, never half of one, and a link where the target goes is replaced, what it pointed to left as it was.
A call killed between the two leaves its temporary file; the pid in its name lets the next writer of the same target
find those whose writer is dead (`left_by_dead_writers`). A target's name too long to fit in the temporary one (a
file name has at most 255 bytes) is cut and followed by a hash of it, so two targets never share temporary names.
Nothing here says anything: the callers name the files."""

from __future__ import annotations

import glob
import hashlib
import os
import tempfile
from pathlib import Path


def replace_file(path: Path, data: bytes) -> None:
    """`data` into `path`, replacing it in one rename; the temporary file is removed on failure. The file gets the
    permissions of any file the user creates (mkstemp's are private to the owner), set on the open file, not by
    its name."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f"{_prefix(path)}{os.getpid()}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            os.fchmod(stream.fileno(), 0o666 & ~_umask())
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def left_by_dead_writers(path: Path) -> list[Path]:
    """The temporary files of `path` (plain files named as `replace_file` names them; a link or a folder so named is
    someone else's) whose writer is no longer running: calls killed before their rename."""
    prefix = _prefix(path)
    left = []
    for candidate in sorted(path.parent.glob(f"{glob.escape(prefix)}*.tmp")):
        pid, dot, _ = candidate.name[len(prefix):].partition(".")
        if dot and pid.isdigit() and candidate.is_file() and not candidate.is_symlink() and not running(int(pid)):
            left.append(candidate)
    return left


# The bytes of a target's name kept in its temporary name: 255 less the dots, a pid (7 digits at most), mkstemp's
# 8 random characters and ".tmp".
_NAME_ROOM = 255 - 3 - 7 - 8 - 4


def _prefix(path: Path) -> str:
    """`.<name>.`, the start of `path`'s temporary names; a name over _NAME_ROOM bytes is cut and a hash added."""
    name = os.fsencode(path.name)
    if len(name) > _NAME_ROOM:
        digest = hashlib.sha256(name).hexdigest()[:12].encode()
        name = name[:_NAME_ROOM - len(digest) - 1] + b"~" + digest
    return f".{os.fsdecode(name)}."


def link_on_the_way(top: Path, path: Path) -> Path | None:
    """The first symbolic link among the folders below `top` (itself excluded: the caller named it) that lead to
    `path`; None when there is none. A file written below one would land where it points."""
    step = top
    for part in path.parent.relative_to(top).parts:
        step = step / part
        if step.is_symlink():
            return step
    return None


def running(pid: int) -> bool:
    """Whether a process `pid` runs on this host (another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _umask() -> int:
    """The process's umask (reading it means setting it, so it is set back at once)."""
    current = os.umask(0o022)
    os.umask(current)
    return current
