"""The provenance a record carries: the definition's hash (the YAML as loaded and a process's workflow file, not
their layout), read back from records of every age (a missing or foreign field is unknown, never an error)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from toolkit.core.entities.file_hashing import file_sha256
from toolkit.core.entities.model import Entity
from toolkit.core.entities.provenance import Provenance, RepoRevision, definition_hash, provenance
from toolkit.core.entities.repo import ConfigRepo

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(TEMPLATE, tmp_path / "conf")
    return tmp_path / "conf"


def hashes(repo: Path) -> tuple[str, str]:
    config = ConfigRepo.load(repo)
    return (definition_hash(config.feed("clicks"), repo),
            definition_hash(config.process("hourly-clicks-summary"), repo))


def test_comments_and_layout_do_not_change_the_hash_a_value_does(repo: Path) -> None:
    before = hashes(repo)
    feed = repo / "feeds" / "clicks.yaml"
    feed.write_text("# a comment added\n" + feed.read_text().replace("frequency: hours(1)", "frequency:   hours(1)"))
    assert hashes(repo) == before
    feed.write_text(feed.read_text().replace("limit: days(90)", "limit: days(91)", 1))
    after = hashes(repo)
    assert after[0] != before[0] and after[1] == before[1] and after[0].startswith("v1:")


def test_a_process_hash_covers_its_workflow_file(repo: Path) -> None:
    before = hashes(repo)
    workflow = repo / "workflows" / "hourly_clicks_summary.py"
    workflow.write_text(workflow.read_text() + "\n")
    assert hashes(repo)[1] != before[1] and hashes(repo)[0] == before[0]


@pytest.mark.parametrize("written", [None, "abc", {}, {"definition": 3}, {"definition": "v1:x", "commit": 5},
                                     {"definition": "v1:x", "dirty": "yes"}])
def test_a_record_without_a_readable_definition_is_unknown(written: object) -> None:
    assert Provenance.read(written) is None


def test_provenance_reads_back_what_it_writes_and_says_its_commit_briefly(repo: Path) -> None:
    feed = ConfigRepo.load(repo).feed("clicks")
    known = provenance(feed, repo, RepoRevision(COMMIT, dirty=True))
    assert Provenance.read(known.to_json()) == known
    assert (known.label, provenance(feed, repo, None).label) == ("0123456789ab+dirty", "no git")
    assert provenance(feed, repo, None).to_json() == {"commit": None, "dirty": False,
                                                      "definition": definition_hash(feed, repo)}


def test_a_revision_is_a_full_commit_name() -> None:
    with pytest.raises(ValueError, match="full hexadecimal git object name"):
        RepoRevision("HEAD", dirty=False)


def test_a_spark_application_and_a_workflow_folder_count_and_a_fifo_is_never_opened(repo: Path) -> None:
    import os

    def top_pages() -> str:
        return definition_hash(ConfigRepo.load(repo).process("top-pages"), repo)

    before = top_pages()
    app = repo / "workflows" / "top_pages_app.py"  # its spark-attributes.jar
    app.write_text(app.read_text() + "\n")
    assert top_pages() != before
    summary = repo / "workflows" / "hourly_clicks_summary.py"
    summary.unlink()
    os.mkfifo(summary)  # reading it would block for ever
    assert hashes(repo)[1].startswith("v1:")


@pytest.mark.parametrize("size", [5, (3 << 20) + 7], ids=["small", "three-reads-and-a-bit"])
def test_a_workflow_file_hashed_in_bounded_reads_hashes_as_its_whole_bytes(repo: Path, size: int) -> None:
    """Records carry the hash: reading a workflow file (or a folder's files) in reads of 1 MiB gives the value that
    hashing its whole bytes gave."""
    config = ConfigRepo.load(repo)
    summary, top_pages = config.process("hourly-clicks-summary"), config.process("top-pages")
    content = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    (repo / "workflows" / "hourly_clicks_summary.py").write_bytes(content)
    assert definition_hash(summary, repo) == "v1:" + hashlib.sha256(yaml_of(summary) + b"\0workflow\0" + content
                                                                    ).hexdigest()
    (repo / "workflows" / "top_pages_app.py").unlink()  # no Spark application: the workflow folder's files count
    folder = b"".join(file.relative_to(repo / "workflows").as_posix().encode() + b"\0" + file.read_bytes()
                      for file in sorted((repo / "workflows").rglob("*")) if file.is_file())
    assert definition_hash(top_pages, repo) == "v1:" + hashlib.sha256(yaml_of(top_pages) + b"\0workflow\0" + folder
                                                                      ).hexdigest()
    assert file_sha256(repo / "workflows" / "hourly_clicks_summary.py") == hashlib.sha256(content).hexdigest()


def yaml_of(entity: Entity) -> bytes:
    return json.dumps(entity.document.data, sort_keys=True, default=str, separators=(",", ":")).encode()
