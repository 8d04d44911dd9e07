"""Copy this config repo and change it to show the toolkit's data-safety checks (`make demo` uses it):
`clicks` on `primary` archives instead of deleting (the cluster gets `locations: {archive: /archive}`), and,
with `--mistakes`, two entities the linter refuses: a feed whose daily folders hold `clicks`' hourly
instances (RP009), and a cluster on an object store (CL006).

    python demo/safety_repo.py --to /tmp/feed-toolkit-demo/safety-repo --mistakes
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parents[1]

SHARED_FOLDER_FEED = """kind: feed
name: clicks-by-day
description: A feed written by mistake into the folders of clicks (one folder a day above its hourly ones).
frequency: days(1)
clusters:
  - name: primary
    validity: {start: 2025-12-01T00:00Z, end: 2099-12-31T00:00Z}
    retention: {limit: days(7), action: delete}
locations:
  data: /data/clicks/${YEAR}/${MONTH}/${DAY}
"""

OBJECT_STORE_CLUSTER = """kind: cluster
name: lake
description: A cluster on an object store, which offers no atomic create or rename.
colo: cloud
interfaces:
  write: {endpoint: "s3a://lake-bucket", version: "3.4"}
locations:
  working: /feed-toolkit/working
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--to", type=Path, required=True, help="The folder of the copy (replaced).")
    parser.add_argument("--mistakes", action="store_true", help="Add the two entities the linter refuses.")
    args = parser.parse_args()
    shutil.rmtree(args.to, ignore_errors=True)
    shutil.copytree(TEMPLATE, args.to, ignore=shutil.ignore_patterns("demo", "README.md", ".schemas"))
    cluster = args.to / "clusters" / "primary.yaml"
    cluster.write_text(cluster.read_text().replace("locations:\n", "locations:\n  archive: /archive\n", 1))
    feed = args.to / "feeds" / "clicks.yaml"
    text = feed.read_text()
    first = text.index("action: delete")  # primary's: the first cluster of the feed
    feed.write_text(text[:first] + "action: archive" + text[first + len("action: delete"):])
    if args.mistakes:
        (args.to / "feeds" / "clicks-by-day.yaml").write_text(SHARED_FOLDER_FEED)
        (args.to / "clusters" / "lake.yaml").write_text(OBJECT_STORE_CLUSTER)
    print(f"wrote {args.to}: clicks on primary archives to /archive"
          + ("; plus feeds/clicks-by-day.yaml and clusters/lake.yaml" if args.mistakes else ""))


if __name__ == "__main__":
    main()
