"""A run's record: read back as the JSON it was given, one field and one listed item per line."""

from __future__ import annotations

import json

from toolkit.services.runtime.run_record import record_text


def test_one_field_and_one_listed_item_per_line_read_back_as_given() -> None:
    evicted = [{"time": f"2021-01-01T{hour:02d}:00Z", "path": f"file:///d/2021/01/01/{hour:02d}", "bytes": 100}
               for hour in range(3)]
    record = {"feed": "clicks", "evicted": evicted, "refused": [], "took_over": None, "counts": {"b": 2, "a": 1}}
    text = record_text(record)
    assert json.loads(text) == record
    assert text.splitlines() == [
        "{",
        '  "counts": {"a": 1, "b": 2},',
        '  "evicted": [',
        '    {"bytes": 100, "path": "file:///d/2021/01/01/00", "time": "2021-01-01T00:00Z"},',
        '    {"bytes": 100, "path": "file:///d/2021/01/01/01", "time": "2021-01-01T01:00Z"},',
        '    {"bytes": 100, "path": "file:///d/2021/01/01/02", "time": "2021-01-01T02:00Z"}',
        "  ],",
        '  "feed": "clicks",',
        '  "refused": [],',
        '  "took_over": null',
        "}",
    ]
