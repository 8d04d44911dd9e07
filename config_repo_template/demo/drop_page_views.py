"""Drop page-view files into the `page-views` landing folder as a log shipper does (written under a hidden
name, then renamed into place), for trying streaming ingest on one machine.

    python demo/drop_page_views.py --root /tmp/feed-toolkit-demo/primary --start 2026-01-01T10:00Z --minutes 80

One file per 20 minutes of views, a view every 30 seconds, named by its first view's time as shippers name them
(`views-2026-01-01T10:00:00.csv`: colons and all); the second line of the first file is malformed (a field
missing), so that it lands in the dead letters. `--name` gives every file that name instead: a shipper whose
counter restarted, sending a name that was used before.
"""

from __future__ import annotations

import argparse
from datetime import datetime, timedelta, timezone
from pathlib import Path

PAGES = ("/", "/search", "/cart", "/checkout", "/help")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="The cluster's root folder (its write endpoint).")
    parser.add_argument("--start", required=True, help="The first view's time, yyyy-MM-ddTHH:mmZ.")
    parser.add_argument("--minutes", type=int, required=True, help="How many minutes of views.")
    parser.add_argument("--name", help="The files' name (default: views-<first view's time>.csv).")
    args = parser.parse_args()
    first = datetime.strptime(args.start, "%Y-%m-%dT%H:%MZ").replace(tzinfo=timezone.utc)
    landing = args.root / "landing" / "page-views"
    landing.mkdir(parents=True, exist_ok=True)
    for part in range(0, args.minutes, 20):
        lines = []
        for k in range(40):
            t = first + timedelta(minutes=part, seconds=30 * k)
            lines.append(f"{t:%Y-%m-%dT%H:%M:%S}Z,user-{k % 7},web-{k % 3},{PAGES[k % len(PAGES)]},{40 + k * 3}\n")
        if part == 0 and args.name is None:
            lines.insert(1, f"{first:%Y-%m-%dT%H:%M:%S}Z,user-9,/help\n")  # a field missing: a dead letter
        name = args.name or f"views-{first + timedelta(minutes=part):%Y-%m-%dT%H:%M:%S}.csv"
        hidden = landing / f".{name}"
        hidden.write_text("".join(lines))
        hidden.rename(landing / name)
        print(f"dropped {landing / name} ({len(lines)} lines)")


if __name__ == "__main__":
    main()
