"""FD034: a feed's ingest `landing` and `dead-letters` are apart from every other feed's data and ingest folders on
the clusters they share.

Why:
Ingest reads every file in the landing folder and writes rejected records into the dead letters. A landing or
dead-letter folder that is, lies inside or holds the fixed folder of another feed's `data` location (before its
first `${...}` variable) writes foreign files into that feed's published instances, or reads its instances as
records; one that meets another feed's landing or dead-letter folder makes the two ingests read or write each
other's files. Paths are under each cluster's root, cluster overrides applied, so only feeds on one cluster
collide; a table feed has no data folder, but its ingest folders count. The ingest run refuses the same overlaps
(exit 2) from the same logic; the feed's own data is FD030's.

Anti-pattern: page-views' rejected records land among the hours of clicks.

    - name: clicks
      locations: {data: "/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"}
    - name: page-views
      locations: {data: "/data/page-views/${YEAR}/${MONTH}/${DAY}/${HOUR}"}
      ingest: {landing: /landing/page-views, format: json, dead-letters: /data/clicks/rejected}

Best practice: folders of its own.

    - name: clicks
      locations: {data: "/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"}
    - name: page-views
      locations: {data: "/data/page-views/${YEAR}/${MONTH}/${DAY}/${HOUR}"}
      ingest: {landing: /landing/page-views, format: json, dead-letters: /rejected/page-views}
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import Finding, Rule, register
from toolkit.authoring.lint.rules.feed._common import storages
from toolkit.authoring.lint.rules.feed._ingest import clusters_text
from toolkit.core.entities.ingest_folders import Folder, Folders, Overlap, folders_of
from toolkit.core.entities.model import Feed


@register
class IngestPathsApart(Rule):
    code = "FD034"
    summary = ("A feed's ingest `landing` and `dead-letters` are apart from every other feed's data and ingest "
               "folders on the clusters they share.")
    # another feed's data location moved over an ingest folder is reported on the ingesting feed, unchanged
    reports_outside_selection = True

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        streamed = [feed for feed in ctx.repo.feeds.values() if feed.ingest is not None]
        if not streamed:
            return
        by_cluster = _folders_by_cluster(ctx.repo.feeds.values())
        for feed in streamed:
            yield from _findings(feed, by_cluster)


def _folders_by_cluster(feeds: Iterable[Feed]) -> dict[str, Folders]:
    """Cluster name -> the folders of every feed on it, its storage there after overrides."""
    found: dict[str, list[Folder]] = {}
    for feed in feeds:
        for _, cluster, storage in storages(feed):
            found.setdefault(cluster.name, []).extend(folders_of(feed, storage.locations, storage.table))
    return {name: Folders(folders) for name, folders in found.items()}


def _findings(feed: Feed, by_cluster: Mapping[str, Folders]) -> Iterator[Finding]:
    """One finding per overlapping pair of folders, naming every cluster where they overlap."""
    clusters: dict[Overlap, list[str]] = {}
    for name in dict.fromkeys(feed.cluster_names):
        for overlap in by_cluster[name].overlaps(feed, own_data=False):
            clusters.setdefault(overlap, []).append(name)
    for overlap, names in clusters.items():
        key = overlap.mine.field.removeprefix("ingest.")
        yield Finding(feed, f"{overlap.sentence(clusters_text(names))}.", ("ingest", key))
