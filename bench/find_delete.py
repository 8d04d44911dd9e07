"""The `find PATHS -delete` command line a benchmark times as its floor, refused when it could delete elsewhere.

`find` with no starting point works on the current directory: an empty list of folders (a plan that found nothing
to delete) would delete whatever folder the benchmark was started from, the checkout included. A relative path
would be read from there too.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def find_delete_command(paths: Sequence[str | Path], inside: Path) -> list[str]:
    """`find PATHS -delete`, every path absolute and under `inside` (the benchmark's scratch folder); ValueError
    for an empty list or a path elsewhere."""
    if not paths:
        raise ValueError("find -delete was given no folder: it would delete the current directory's contents")
    scratch = inside.resolve()
    for path in paths:
        if not Path(path).is_absolute() or not Path(path).resolve().is_relative_to(scratch):
            raise ValueError(f"find -delete was given {path}, which is not under the benchmark's folder {scratch}")
    return ["find", *(str(path) for path in paths), "-delete"]
