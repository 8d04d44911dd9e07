"""A config repo (the template's) whose clusters' roots are temp folders, and a tree of feed instances
with decoys beside them, for retention tests on the local file system."""

from __future__ import annotations

import re
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"

DECOYS = (
    "data/clicks/2015-3-05",  # digits of the wrong width
    "data/clicks/bad-va-lue",
    "data/clicks/someFolder/file.txt",
    "data/clicks/2020/01/01/somefile.txt",  # a file at the day level, where hour folders belong
    "data/clicks/2020/13/01/00/part-0",  # month 13
    "data/clicks/2020/02/30/00/part-0",  # February 30th
    "data/clicks-old/2020/01/01/00/part-0",  # like an instance, but under another literal
    "data/clicks/2020/01/01/5/part-0",  # hour of one digit
)


# A `quality: {...}` line of the template's entities (one line each, so that tests can take it out).
QUALITY_LINE = re.compile(r"^ *quality: \{.*\}\n", re.MULTILINE)


def make_repo(tmp: Path, quality: bool = False) -> tuple[Path, Path]:
    """(the repo, the primary cluster's root folder). The template's data-quality gates stay only with `quality`:
    the tests of other capabilities neither pay Great Expectations' set-up nor write the summary's exact columns
    (tests/integration/quality/ test the gates)."""
    repo = tmp / "conf"
    shutil.copytree(TEMPLATE, repo)
    if not quality:
        for entity in (*repo.glob("feeds/*.yaml"), *repo.glob("processes/*.yaml")):
            text = entity.read_text()
            if QUALITY_LINE.search(text):
                entity.write_text(QUALITY_LINE.sub("", text))
    root = tmp / "primary"
    root.mkdir()
    for name in ("primary", "backup"):
        cluster = repo / "clusters" / f"{name}.yaml"
        cluster.write_text(cluster.read_text().replace(f"file:///tmp/feed-toolkit-demo/{name}",
                                                        f"file://{tmp / name}"))
    return repo, root


def replication_clusters(tmp: Path) -> tuple[Path, Path, Path]:
    """(the repo, the primary cluster's root, the backup cluster's root, empty): the template's `clicks` replicates
    from primary into backup."""
    repo, primary = make_repo(tmp)
    (tmp / "backup").mkdir()
    return repo, primary, tmp / "backup"


def hourly_instances(root: Path, first: datetime, hours: int, template: str = "data/clicks") -> list[Path]:
    """Instance folders `root/template/YYYY/MM/DD/HH` with a data file and the _SUCCESS flag."""
    made = []
    for k in range(hours):
        t = first + timedelta(hours=k)
        folder = root / template / f"{t:%Y/%m/%d/%H}"
        folder.mkdir(parents=True)
        (folder / "part-00000.json").write_text('{"page": "/", "user": "u"}\n' * 3)
        (folder / "_SUCCESS").write_text("")
        made.append(folder)
    return made


def plant_decoys(root: Path) -> list[Path]:
    made = []
    for decoy in DECOYS:
        path = root / decoy
        if path.suffix:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("keep me\n")
        else:
            path.mkdir(parents=True, exist_ok=True)
        made.append(path)
    return made


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=timezone.utc)


def instance(root: Path, prefix: str, t: datetime, files: dict[str, bytes], flag: bool = True) -> Path:
    """An instance folder of `files` under `root/prefix` at `t` (hourly), with its _SUCCESS flag unless not `flag`."""
    folder = root / prefix / f"{t:%Y/%m/%d/%H}"
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    if flag:
        (folder / "_SUCCESS").write_bytes(b"")
    return folder
