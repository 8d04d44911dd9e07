"""FD030: the ingest `landing` and `dead-letters` are fixed folders under the cluster root, apart from each other
and from the feed's data.

Why:
Producers drop files in the landing folder and ingest writes rejected records to the dead letters: both are
absolute paths under each cluster's root (a `/` first, no `.` or `..` segment, no `${...}` date variable: records
of any time land in one folder). Dead letters inside the landing folder would be read again as records, and the
same folder for both mixes rejects with input. And records must never land in the data they feed: a landing or
dead-letter folder inside (or holding) the fixed folder before the first variable of the feed's `data` location
on any of its clusters would be listed, evicted or replicated as instances.

Anti-pattern:

    locations:
      data: /data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}
    ingest:
      landing: /data/clicks/landing
      format: json
      dead-letters: /data/clicks/landing/rejected

Best practice:

    locations:
      data: /data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}
    ingest:
      landing: /landing/clicks
      format: json
      dead-letters: /landing/clicks-rejected
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import storages
from toolkit.authoring.lint.rules.feed._ingest import clusters_text
from toolkit.core.entities.ingest_folders import data_prefix, folder_problem, relation
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed
from toolkit.uris import normalize_uri

LANDING, DEAD_LETTERS = "landing", "dead-letters"


@register
class IngestPaths(EntityRule[Feed]):
    code = "FD030"
    summary = ("The ingest `landing` and `dead-letters` are fixed folders under the cluster root, apart from each "
               "other and from the feed's data.")
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        ingest = entity.ingest
        if ingest is None:
            return
        paths = {LANDING: ingest.landing, DEAD_LETTERS: ingest.dead_letters}
        wrong = {key: why for key, path in paths.items() if (why := folder_problem(path)) is not None}
        for key, why in wrong.items():
            yield Finding(entity, f"ingest.{key} {paths[key]!r} {why}.", ("ingest", key))
        good = {key: normalize_uri(path) for key, path in paths.items() if key not in wrong}
        if len(good) == 2:
            yield from _apart(entity, good[LANDING], good[DEAD_LETTERS])
        prefixes = _data_prefixes(entity)
        for key, path in good.items():
            for prefix, clusters in prefixes.items():
                how = relation(path, prefix)
                if how is not None:
                    yield Finding(entity, f"ingest.{key} {path!r} {how} {prefix!r}, the fixed folder of the feed's "
                                  f"data location on {clusters}: records must never land in the data they "
                                  "feed (their files would be read, evicted or replicated as instances); give a "
                                  f"folder outside it, as /landing/{entity.name}.", ("ingest", key))


def _apart(entity: Feed, landing: str, dead_letters: str) -> Iterator[Finding]:
    """The dead letters neither are the landing folder nor lie inside or hold it."""
    meeting = relation(dead_letters, landing)
    if meeting == "is":
        how = "is also ingest.landing: rejected records would mix with the files producers drop"
    elif meeting == "lies inside":
        how = f"lies inside ingest.landing {landing!r}: rejected records would be read again as records"
    elif meeting == "holds":
        how = f"holds ingest.landing {landing!r}: the landing files would be taken for rejected records"
    else:
        return
    yield Finding(entity, f"ingest.dead-letters {dead_letters!r} {how}; give it a folder of its own, such as "
                  f"{landing}-rejected.", ("ingest", DEAD_LETTERS))


def _data_prefixes(entity: Feed) -> dict[str, str]:
    """The fixed folder of the `data` template on each cluster stored in files (toolkit/core/entities/ingest_folders.py)
    -> those clusters, named for a message (`cluster 'primary'`, `clusters 'primary' and 'backup'`); templates that
    do not parse or start with a variable are other rules'."""
    clusters: dict[str, list[str]] = {}
    for _, cluster, storage in storages(entity):
        prefix = data_prefix(storage.locations, storage.table)
        if prefix is not None:
            clusters.setdefault(prefix, []).append(cluster.name)
    return {prefix: clusters_text(names) for prefix, names in clusters.items()}
