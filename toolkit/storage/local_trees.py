"""Removing a local directory tree without following a link, in fewer system calls than `shutil.rmtree`.

Retention removes tens of thousands of instance folders in one call, several trees at once in threads. `rmtree`'s
safe walk checks each folder against a link swapped in for it with an `lstat` before opening it and an `fstat`
after; opening each folder with `O_NOFOLLOW | O_DIRECTORY` relative to its parent's descriptor gives the same
guarantee in one call (a link, or a file, in its place fails to open and is unlinked itself). On the retention
benchmark's 68 folders of 35,064 hourly instances, four threads removed them in 2.65 s against 3.30 s with `rmtree`.

The walk keeps a stack, not Python's recursion (a hostile tree's depth is no RecursionError), and an entry that
vanishes meanwhile (another remover, a producer tidying up) counts as removed. Any other error ends the walk with
the `OSError` (what was removed is gone, the rest stays), as `rmtree` does.
"""

from __future__ import annotations

import contextlib
import errno
import os

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NOT_A_FOLDER = (errno.ENOTDIR, errno.ELOOP)  # a file, or a link (never followed), where a folder was listed


def remove_tree(path: str) -> None:
    """Remove the folder `path` and everything in it; a link in it is removed, never followed."""
    parent, name = os.path.split(os.path.normpath(path))
    parent_fd = os.open(parent or ".", _FOLDER & ~os.O_NOFOLLOW)  # the path above `name` is the caller's
    try:
        _remove_below(parent_fd, name)
    finally:
        os.close(parent_fd)


def _remove_below(parent_fd: int, name: str) -> None:
    """Remove the entry `name` of the folder `parent_fd`: a folder emptied first, depth first. The stack holds, for
    each folder open, its parent's descriptor, its name there, its descriptor and its subfolders still to remove
    (None until its files are removed)."""
    fd = _open_folder(parent_fd, name)
    if fd is None:
        return
    stack: list[tuple[int, str, int, list[str] | None]] = [(parent_fd, name, fd, None)]  # each fd in it is open
    try:
        while stack:
            above, folder_name, folder, subfolders = stack[-1]
            if subfolders is None:  # just opened: its files go, its subfolders are listed
                subfolders = _files_removed(folder)
                stack[-1] = (above, folder_name, folder, subfolders)
            if subfolders:
                child_name = subfolders.pop()
                child = _open_folder(folder, child_name)
                if child is not None:
                    stack.append((folder, child_name, child, None))
                continue
            stack.pop()
            os.close(folder)
            with contextlib.suppress(FileNotFoundError):
                os.rmdir(folder_name, dir_fd=above)
    except BaseException:
        for _, _, folder, _ in stack:
            os.close(folder)
        raise


def _open_folder(parent_fd: int, name: str) -> int | None:
    """A descriptor of the folder `name`, or None once a file or link in its place is unlinked (or it is gone)."""
    try:
        return os.open(name, _FOLDER, dir_fd=parent_fd)
    except FileNotFoundError:
        return None
    except OSError as err:
        if err.errno not in _NOT_A_FOLDER:
            raise
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=parent_fd)
    return None


def _files_removed(fd: int) -> list[str]:
    """Unlink the folder's files and links; the names of its subfolders."""
    subfolders = []
    with os.scandir(fd) as entries:
        listed = list(entries)
    for entry in listed:
        if entry.is_dir(follow_symlinks=False):
            subfolders.append(entry.name)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.name, dir_fd=fd)
    return subfolders
