"""What `toolkit init` may put into the files of a new repo, checked before anything is written: the cluster's name
becomes a file's path (`clusters/NAME.yaml`) and a YAML value, the root a YAML value and, as a path, a word of the
shell commands in the new README. A name the entity schema refuses, or a root a shell or YAML would read otherwise
(quotes, `;`, `$`, `#`, blanks, line breaks, `.` or `..` segments), is one sentence naming the option (exit 2)."""

from __future__ import annotations

import re

from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.schemas import schema
from toolkit.errors import UsageError

_NAME = r"[A-Za-z0-9._+-]+"  # a folder name of the root's path: safe unquoted in a shell word and a YAML scalar
_ROOT = re.compile(rf"(?:file://|[A-Za-z][A-Za-z0-9+.-]*://[A-Za-z0-9.-]+(?::[0-9]{{1,5}})?)(?:/(?:{_NAME})?)*")


def check_cluster(cluster: str) -> None:
    """UsageError unless `cluster` is a cluster's name by the cluster schema (its pattern and length)."""
    rule = schema(Kind.CLUSTER)["definitions"]["name"]
    if not re.fullmatch(rule["pattern"], cluster) or len(cluster) > rule["maxLength"]:
        raise UsageError(f"--cluster {cluster!r} is not a cluster's name: use letters, digits and hyphens, starting "
                         f"with a letter, at most {rule['maxLength']} characters; nothing was written.")


def check_root(root: str) -> None:
    """UsageError unless `root` is `file:///an/absolute/path` or `scheme://host[:port][/path]`, its names of the
    characters of `_NAME` and none of them `.` or `..`."""
    path = root.partition("://")[2].partition("/")[2]
    if not _ROOT.fullmatch(root) or (root.startswith("file://") and not root.startswith("file:///")) \
            or any(name in (".", "..") for name in path.split("/")):
        raise UsageError(f"--root {root!r} is not a root toolkit init can write: give file:///an/absolute/path or "
                         "scheme://host:port with an optional /path, its names made of letters, digits, '.', '_', "
                         "'-' and '+'; nothing was written.")
