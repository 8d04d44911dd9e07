"""What a folder holds, to compare before and after an action: the hostile-layout tests assert that nothing behind a
link, or outside the place an action owns, changed."""

from __future__ import annotations

import os
from pathlib import Path


def tree(folder: Path) -> dict[str, bytes | str]:
    """Every entry below `folder`: a file's bytes, a link's target (`-> target`), a folder as `/`."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")) if folder.exists() else []:
        name = str(path.relative_to(folder))
        found[name] = f"-> {os.readlink(path)}" if path.is_symlink() else "/" if path.is_dir() else path.read_bytes()
    return found
