"""A record's stamp read without strptime in its padded form reads as strptime reads it, and what strptime refuses
is refused."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolkit.core.ledger.records import record_stamp

INSTANTS = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59))


def by_strptime(text: str) -> datetime:
    for pattern in ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%MZ"):
        try:
            return datetime.strptime(text, pattern).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    raise ValueError(text)


@given(INSTANTS)
def test_a_padded_stamp_reads_as_strptime_reads_it(instant: datetime) -> None:
    for text in (f"{instant:%Y-%m-%dT%H:%M:%SZ}", f"{instant:%Y-%m-%dT%H:%MZ}"):
        if len(text.split("-")[0]) == 4:  # strftime pads no year below 1000 on every platform
            assert record_stamp(text) == by_strptime(text)


@pytest.mark.parametrize("text", ["2026-1-2T3:04:05Z", "2026-11-21T10:00:05Z", "2026-11-21T10:00Z"])
def test_every_form_strptime_reads_is_read(text: str) -> None:
    assert record_stamp(text) == by_strptime(text)


@pytest.mark.parametrize("text", ["2026-13-01T00:00Z", "2026-02-30T00:00:00Z", "2026-11-21T24:00Z", "2026-11-21",
                                  "2026-11-21T10:00:05", "2026-11-21T10:00:05+00:00"])
def test_what_strptime_refuses_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        by_strptime(text)
    with pytest.raises(ValueError):
        record_stamp(text)
