"""Write hourly instances of the `clicks` feed (JSON lines and the `_SUCCESS` flag) under a local
cluster root, for trying retention and the processes on one machine.

    python demo/generate_clicks.py --root /tmp/feed-toolkit-demo/primary --start 2025-12-30T00:00Z --hours 96
"""

from __future__ import annotations

import argparse
import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

PAGES = ("/", "/search", "/cart", "/checkout", "/help")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="The cluster's root folder (its write endpoint).")
    parser.add_argument("--start", required=True, help="First hour, yyyy-MM-ddTHH:mmZ.")
    parser.add_argument("--hours", type=int, required=True, help="How many hourly instances.")
    args = parser.parse_args()
    first = datetime.strptime(args.start, "%Y-%m-%dT%H:%MZ").replace(tzinfo=timezone.utc)
    rng = random.Random(7)
    for k in range(args.hours):
        hour = first + timedelta(hours=k)
        folder = args.root / "data" / "clicks" / f"{hour:%Y/%m/%d/%H}"
        folder.mkdir(parents=True, exist_ok=True)
        rows = [{"ts": (hour + timedelta(minutes=rng.randrange(60))).strftime("%Y-%m-%dT%H:%M:%SZ"),
                 "user": f"u{rng.randrange(50)}", "page": rng.choice(PAGES)} for _ in range(20)]
        (folder / "part-00000.json").write_text("".join(json.dumps(row) + "\n" for row in rows))
        (folder / "_SUCCESS").write_text("")
    (args.root / "data" / "clicks" / "notes").mkdir(parents=True, exist_ok=True)  # not an instance: never touched
    print(f"wrote {args.hours} hourly instances of clicks under {args.root}/data/clicks from {args.start}")


if __name__ == "__main__":
    main()
