"""An ingest run refuses (exit 2, one sentence naming both feeds, the fields and the folder) landing and
dead-letter folders that meet a feed's data on the cluster (its own included) or another feed's ingest folders,
the same overlaps lint's FD030 and FD034 report (toolkit/actions/ingest/overlaps.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest.overlaps import require_apart
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError

CLICKS = """\
kind: feed
name: clicks
frequency: hours(1)
clusters:
  - name: {cluster}
    validity: {{start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}}
locations:
  data: /data/clicks/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}
{extra}"""

VISITS = """\
kind: feed
name: visits
frequency: days(1)
clusters:
  - name: primary
    validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
table:
  uri: catalog:web:visits#ds=${YEAR}-${MONTH}-${DAY}
ingest:
  landing: /landing/visits
  format: json
  dead-letters: /rejected/visits
"""


def repo_with(tmp_path: Path, events: dict[str, str] | None = None, **feeds: str) -> ConfigRepo:
    """The ingest test repo (feed `events` on `primary`), its ingest folders replaced as `events` says (old ->
    new text), with `feeds` (name -> YAML) added and a cluster `backup`."""
    repo, _ = make_repo(tmp_path)
    backup = repo.root / "clusters" / "backup.yaml"
    backup.write_text((repo.root / "clusters" / "primary.yaml").read_text().replace("name: primary", "name: backup"))
    path = repo.root / "feeds" / "events.yaml"
    text = path.read_text()
    for old, new in (events or {}).items():
        assert old in text
        text = text.replace(old, new)
    path.write_text(text)
    for name, yaml in feeds.items():
        (repo.root / "feeds" / f"{name}.yaml").write_text(yaml)
    return ConfigRepo.load(repo.root)


def refusal(repo: ConfigRepo, feed: str = "events", cluster: str = "primary") -> str:
    with pytest.raises(UsageError) as refused:
        require_apart(repo, repo.feed(feed), repo.cluster(cluster))
    assert refused.value.exit_code == 2
    return str(refused.value)


def test_dead_letters_inside_another_feeds_instance_folder_are_refused(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, {"dead-letters: /rejected/events": "dead-letters: /data/clicks/2026/01/01/10"},
                     clicks=CLICKS.format(cluster="primary", extra=""))
    assert refusal(repo) == (
        "Feed 'events': ingest.dead-letters '/data/clicks/2026/01/01/10' lies inside the data folder '/data/clicks' "
        "of feed 'clicks' (the fixed part of its locations.data) on cluster 'primary'; ingest's files would mix with "
        "that feed's instances: give ingest.dead-letters a folder outside it, such as /rejected/events.")


def test_folders_apart_pass(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, {"dead-letters: /rejected/events": "dead-letters: /data/clicks-rejected"},
                     clicks=CLICKS.format(cluster="primary", extra=""), visits=VISITS)
    require_apart(repo, repo.feed("events"), repo.cluster("primary"))


def test_another_cluster_does_not_collide(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, {"dead-letters: /rejected/events": "dead-letters: /data/clicks/rejected"},
                     clicks=CLICKS.format(cluster="backup", extra=""))
    require_apart(repo, repo.feed("events"), repo.cluster("primary"))


def test_a_landing_folder_holding_the_feeds_own_data_is_refused(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, {"landing: /landing/events": "landing: /data"})
    assert refusal(repo).startswith(
        "Feed 'events': ingest.landing '/data' holds the data folder '/data/events' of feed 'events' (the fixed part "
        "of its locations.data) on cluster 'primary';")


@pytest.mark.parametrize(("field", "old", "new", "theirs"), [
    ("ingest.landing", "landing: /landing/events", "landing: /landing/visits", "ingest.landing '/landing/visits'"),
    ("ingest.dead-letters", "dead-letters: /rejected/events", "dead-letters: /rejected", "ingest.dead-letters "
     "'/rejected/visits'"),
])
def test_another_feeds_ingest_folders_are_refused_a_table_feeds_too(tmp_path: Path, field: str, old: str, new: str,
                                                                     theirs: str) -> None:
    repo = repo_with(tmp_path, {old: new}, visits=VISITS)
    message = refusal(repo)
    assert message.startswith(f"Feed 'events': {field} '{new.split(': ')[1]}' ")
    assert f"the {theirs} of feed 'visits' on cluster 'primary'; the two ingests would read or write each " \
           "other's files: give one a folder of its own" in message
    assert "of feed 'events' on cluster 'primary'" in refusal(repo, "visits")  # and the other feed's run


def test_a_feed_without_ingest_is_not_checked(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, {"landing: /landing/events": "landing: /data/clicks"},
                     clicks=CLICKS.format(cluster="primary", extra=""))
    require_apart(repo, repo.feed("clicks"), repo.cluster("primary"))
    assert "the data folder '/data/clicks' of feed 'clicks'" in refusal(repo)
