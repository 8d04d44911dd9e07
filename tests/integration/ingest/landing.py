"""Landing files for the ingest tests (the feed of tests/unit/ingest/ingest_repo.py: fields ts, user, _, page, ms;
time ts), dropped as producers do: written under a hidden name, then renamed into place."""

from __future__ import annotations

from pathlib import Path

GOOD_A = ["2026-01-01T10:05:00Z,u1,x,/home,12", "2026-01-01T10:59:59Z,u2,x,/cart,7",
          "2026-01-01T11:30:00Z,u3,x,/home,3"]
BAD_A = ["bad line", "2026-01-01T11:45:00+01:00,u4,x,/pay,notanumber"]
GOOD_B = ["2026-01-01T12:10:00Z,u5,x,/home,1"]
OUTSIDE_B = ["2025-06-01T00:00:00Z,u6,x,/old,1"]  # before the feed's validity


def drop(root: Path, name: str, lines: list[str]) -> Path:
    landing = root / "landing" / "events"
    hidden = landing / f".{name}"
    hidden.write_text("".join(line + "\n" for line in lines))
    return hidden.rename(landing / name)


def drop_first_two(root: Path) -> None:
    drop(root, "a.csv", [GOOD_A[0], BAD_A[0], GOOD_A[1], BAD_A[1], GOOD_A[2]])
    drop(root, "b.csv", GOOD_B + OUTSIDE_B)
