"""URIs as the toolkit spells and compares them: pure string work, no I/O, importable from every layer (the
entity model normalises a cluster's root with it; storage builds on it).

One spelling per path: Hadoop writes local paths as `file:/x`, users write `file:///x` or `file:///x/`, and a
listing sliced by one spelling finds nothing under another. No `.` or `..` segments where a path is built or
compared: Hadoop's `Path` resolves them away and the operating system follows them, so `<table>/../elsewhere`
would pass a string-prefix "inside" test and then be deleted as `elsewhere`.
"""

from __future__ import annotations


def normalize_uri(uri: str) -> str:
    """One spelling per path: Hadoop writes local paths as `file:/x`, we write `file:///x`; no trailing '/'."""
    if uri.startswith("file:/") and not uri.startswith("file:///"):
        uri = "file:///" + uri[len("file:/"):].lstrip("/")
    return uri.rstrip("/") if uri.rstrip("/") and not uri.endswith(":///") else uri


def has_dot_segment(uri: str) -> bool:
    """Whether a segment of the path is `.` or `..` (never resolved here: such a path is refused)."""
    if "/." not in uri and not uri.startswith("."):
        return False  # every such segment but a first one follows a '/': most paths are answered here
    return any(segment in (".", "..") for segment in uri.split("/"))


def split_uri(uri: str) -> tuple[str, str]:
    """(`scheme://authority`, the absolute path) of a URI in any spelling: `file:/x` -> (`file://`, `/x`),
    `hdfs://nn:8020` -> (`hdfs://nn:8020`, `/`); a bare path has no head."""
    spelled = normalize_uri(uri)
    authority = spelled.find("://")
    if authority < 0:
        return "", spelled or "/"
    path_start = spelled.find("/", authority + 3)
    if path_start < 0:
        return spelled, "/"
    return spelled[:path_start], spelled[path_start:]


def is_root(uri: str) -> bool:
    """The root of its file system (`file:///`, `file:/`, `hdfs://nn:8020/`)."""
    return split_uri(uri)[1] == "/"


def path_below(root: str, uri: str) -> str | None:
    """The absolute path of `uri` under `root` (`/data/x` for `file:///r/data/x` under `file:/r/`), `/` for the
    root itself; None when it is not under it (another file system, or a dot segment in either)."""
    if has_dot_segment(root) or has_dot_segment(uri):
        return None
    (root_head, root_path), (head, path) = split_uri(root), split_uri(uri)
    base = root_path.rstrip("/")
    if head != root_head or (path != root_path and not path.startswith(base + "/")):
        return None
    return path[len(base):] or "/"


def is_below(path: str, folder: str) -> bool:
    """`path` lies strictly below `folder`: a path boundary, not a string prefix; never with a dot segment."""
    relative = path_below(folder, path)
    return relative is not None and relative != "/"


def join_under(root: str, path: str) -> str:
    """`path` (absolute, from a feed or a cluster location) under `root`, in one spelling (a root of
    `file:///` gives `file:///data/x`, not `file:/data/x`)."""
    return normalize_uri(root.rstrip("/") + "/" + path.lstrip("/"))
