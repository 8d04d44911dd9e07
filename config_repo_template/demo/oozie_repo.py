"""Copy this config repo and change it to show a Falcon `engine: oozie` process (`make demo` uses it): `primary`
gets a root of its own and names an Oozie server as its workflow interface (`--oozie`, the URL of the stand-in the
demo starts), and the Oozie workflow application of falcon-oozie/app/ is put on the cluster at /apps/clicks-count,
where falcon-oozie/clicks-count-oozie.xml says it is. The Falcon XML of the feed and the process is then converted
into the copy by `toolkit convert-falcon` (the demo does it, to show the migration).

    python demo/oozie_repo.py --to /tmp/feed-toolkit-demo/oozie-repo --root /tmp/feed-toolkit-demo/oozie-primary \
        --oozie http://127.0.0.1:11000/oozie

The root is emptied: every run of the demo starts from no data and an empty ledger.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from trigger_repo import copy_template, replace_exactly

APPLICATION = Path(__file__).resolve().parent / "falcon-oozie" / "app"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--to", type=Path, required=True, help="The folder of the copy (replaced).")
    parser.add_argument("--root", type=Path, required=True,
                        help="primary's root folder in the copy (emptied: its data and its ledger).")
    parser.add_argument("--oozie", required=True, help="The Oozie server's URL (http://host:port/oozie).")
    args = parser.parse_args()
    write_repo(args.to, args.root.resolve(), args.oozie)
    print(f"wrote {args.to}: primary at file://{args.root.resolve()} (emptied), its Oozie {args.oozie}, the "
          "workflow application at /apps/clicks-count")


def write_repo(to: Path, root: Path, oozie: str) -> None:
    """Write the variant repo at `to` (replaced) with primary's root at `root` (emptied) and its Oozie at `oozie`."""
    cluster = copy_template(to, root)
    replace_exactly(cluster, "the toolkit never calls it.\n  workflow:\n    endpoint: cron://localhost\n",
                    f"here, the Oozie server of the oozie and pig processes.\n  workflow:\n    endpoint: {oozie}\n")
    replace_exactly(cluster, "properties:\n", "properties:\n  oozie.client.user: etl\n"
                                              "  oozie.client.poll-seconds: \"0.2\"\n")
    shutil.copytree(APPLICATION, root / "apps" / "clicks-count")


if __name__ == "__main__":
    main()
