"""A roll-up's state lines and digest (toolkit/core/ledger/rollup_records.py, format 3): the states of its instances,
read without the records on its last line, each parsed when asked for, and their status and attempts from the head
alone; a format 2 roll-up (no digest) and a format 1 roll-up (one line, written before the states were) still read;
a damaged or cut head, digest or state line named."""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.ledger.ledger_support import local_cluster
from toolkit.core.entities.provenance import Provenance
from toolkit.core.ledger.instance_states import InstanceOutline, InstanceState, Outlines, _problem
from toolkit.core.ledger.records import (
    CorruptRecordError,
    InstanceRecord,
    NewerFormatError,
    PublishedOutput,
    Written,
    record_document,
)
from toolkit.core.ledger.rollup_records import (
    MonthRollup,
    RolledUp,
    _taken,
    read_rollup,
    read_rollup_digest,
    read_rollup_states,
)
from toolkit.core.ledger.rollups import roll_up
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem

P = "hourly"
MONTH = "202610"
TIMES = [datetime(2026, 10, 31, hour, tzinfo=timezone.utc) for hour in range(3)]


def instance(t: datetime, status: str = "SUCCEEDED", **fields: object) -> InstanceRecord:
    values: dict[str, object] = {"attempts": 1, "run_id": f"run-{t:%H}", "updated": f"{t:%Y-%m-%dT%H}:09:00Z",
                                 "started": f"{t:%Y-%m-%dT%H}:01:00Z", "ended": f"{t:%Y-%m-%dT%H}:09:00Z",
                                 "outputs": Written(PublishedOutput,
                                                    [{"feed": "summary", "time": f"{t:%Y-%m-%dT%H:%MZ}"}])}
    values.update(fields)
    return InstanceRecord(process=P, cluster="primary", time=f"{t:%Y-%m-%dT%H:%MZ}", status=status,
                          **values)  # type: ignore[arg-type]


RECORDS = {TIMES[0]: instance(TIMES[0]),
           TIMES[1]: instance(TIMES[1], "FAILED", attempts=3, error="the workflow failed: boom",
                              definition=Provenance("ab12", "c0ffee")),
           TIMES[2]: instance(TIMES[2], "SKIPPED", ended=None)}


@pytest.fixture()
def ledger(tmp_path: Path) -> Ledger:
    return Ledger.of(LocalFileSystem(), local_cluster(tmp_path / "conf", tmp_path / "root"))


def path_of(ledger: Ledger) -> Path:
    return Path(ledger.layout.rollup_record(P, MONTH).removeprefix("file://"))


def write_rollup(ledger: Ledger) -> Path:
    rollup = MonthRollup(P, MONTH, "").with_instances({t: RolledUp(record) for t, record in RECORDS.items()})
    path = path_of(ledger)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(rollup.to_bytes())
    return path


def lines_of(path: Path) -> list[bytes]:
    return gzip.decompress(path.read_bytes()).splitlines()


def rewrite(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(gzip.compress(b"".join(line + b"\n" for line in lines)))


def test_the_states_are_the_records_without_what_they_read_and_wrote(ledger: Ledger) -> None:
    write_rollup(ledger)
    states = ledger.instance_states(P, TIMES)
    assert states == {t: InstanceState.of(record) for t, record in RECORDS.items()}
    assert states[TIMES[1]] == InstanceState("FAILED", 3, "run-01", "2026-10-31T01:09:00Z", "2026-10-31T01:01:00Z",
                                             "2026-10-31T01:09:00Z", "the workflow failed: boom", (),
                                             Provenance("ab12", "c0ffee"))
    assert ledger.instances(P, TIMES) == RECORDS


OUTLINES = {TIMES[0]: InstanceOutline("SUCCEEDED", 1, TIMES[0].timestamp() + 540, 480),
            TIMES[1]: InstanceOutline("FAILED", 3, TIMES[1].timestamp() + 540, 480),
            TIMES[2]: InstanceOutline("SKIPPED", 1, None, None)}  # ended 09:00 of its hour, started 01:00


def test_the_heads_digest_holds_each_instances_minute_status_and_attempts(ledger: Ledger) -> None:
    path = write_rollup(ledger)
    head = json.loads(lines_of(path)[0])
    assert head == {"format_version": 3, "process": P, "month": MONTH, "states": 3,
                    "digest": {"minutes": [43200, 60, 2], "status": "SFK", "attempts": "1 3 1",
                               "ended": "540 540 -", "duration": "480 480 -"}}
    assert ledger.instance_outlines(P, TIMES) == OUTLINES
    assert ledger.instance_outlines(P, TIMES[1:2]) == {TIMES[1]: OUTLINES[TIMES[1]]}


def test_outlines_read_the_head_alone_and_a_folder_wins_over_the_rollup(ledger: Ledger) -> None:
    path = write_rollup(ledger)
    head, *_ = lines_of(path)
    rewrite(path, [head, b"not a state line", b"nor the records"])
    assert ledger.instance_outlines(P, TIMES) == OUTLINES
    rerun = instance(TIMES[1], "SUCCEEDED", attempts=4)  # a rerun of a rolled-up instance writes its folder again
    ledger.write_instance(rerun)
    assert ledger.instance_outlines(P, TIMES) == {**OUTLINES, TIMES[1]: OUTLINES[TIMES[1]]._replace(status="SUCCEEDED",
                                                                                                 attempts=4)}


def digest_of(change: Callable[[dict[str, object]], object]) -> Damage:
    def damage(lines: list[bytes]) -> list[bytes]:
        head = json.loads(lines[0])
        change(head["digest"])
        return [json.dumps(head).encode(), *lines[1:]]
    return damage


@pytest.mark.parametrize(("damage", "said"), [
    (digest_of(lambda digest: digest.pop("minutes")), "its minutes None are not 3 minutes of 202610"),
    (digest_of(lambda digest: digest.update(minutes=[43200, 60, 3])), "its minutes [43200, 60, 3] are not 3 minutes"),
    (digest_of(lambda digest: digest.update(minutes=[43200, 0, 2])), "are not 3 minutes of 202610 in increasing"),
    (digest_of(lambda digest: digest.update(minutes=[44640 - 60, 60, 2])), "are not 3 minutes of 202610"),
    (digest_of(lambda digest: digest.update(minutes=[-60, 60, 2])), "are not 3 minutes of 202610"),
    (digest_of(lambda digest: digest.update(minutes=[0, 1, 10 ** 12])), "are not 3 minutes of 202610"),
    (digest_of(lambda digest: digest.update(minutes=[43200, 60, True, 1])), "are not 3 minutes of 202610"),
    (digest_of(lambda digest: digest.update(status="SF")), "its status 'SF' is not 3 letters of statuses"),
    (digest_of(lambda digest: digest.update(status="SFZ")), "its status 'SFZ' is not 3 letters of statuses"),
    (digest_of(lambda digest: digest.update(status=["S", "F", "K"])), "is not 3 letters of statuses"),
    (digest_of(lambda digest: digest.update(attempts="1 -3 1")), "the attempts of instance 20261031T0100Z is '-3', "
                                                                  "not a count"),
    (digest_of(lambda digest: digest.update(attempts="1 3.0 1")), "the attempts of instance 20261031T0100Z is '3.0'"),
    (digest_of(lambda digest: digest.update(attempts="1 \u0663 1")), "the attempts of instance 20261031T0100Z is '٣'"),
    (digest_of(lambda digest: digest.update(attempts="1 - 1")), "the attempts of instance 20261031T0100Z is '-'"),
    (digest_of(lambda digest: digest.update(attempts="1 3")), "its attempts '1 3' are not 3 counts"),
    (digest_of(lambda digest: digest.update(attempts="1 3  1")), "its attempts '1 3  1' are not 3 counts"),
    (digest_of(lambda digest: digest.update(attempts=[1, 3, 1])), "its attempts [1, 3, 1] are not 3 counts"),
    (digest_of(lambda digest: digest.update(attempts="1 3 " + "9" * 5000)), "the attempts of instance "
                                                                            "20261031T0200Z is '99999999999999999999'"),
    (digest_of(lambda digest: digest.update(ended="540 x -")), "the ended of instance 20261031T0100Z is 'x', not a "
                                                                "number of seconds"),
    (digest_of(lambda digest: digest.update(ended="540 -- -")), "the ended of instance 20261031T0100Z is '--'"),
    (digest_of(lambda digest: digest.update(ended="540 540")), "its ended '540 540' are not 3 numbers of seconds"),
    (digest_of(lambda digest: digest.update(ended="540 540 -\n")), "the ended of instance 20261031T0200Z is '-\\n'"),
    (digest_of(lambda digest: digest.update(duration="480 -1 -")), "the duration of instance 20261031T0100Z is '-1'"),
    (digest_of(lambda digest: digest.update(duration=" 480 -")), "its duration ' 480 -' are not 3 counts"),
    (digest_of(lambda digest: digest.pop("duration")), "its duration None are not 3 counts of seconds or -"),
    (lambda lines: [lines[0].replace(b'"digest":', b'"digested":'), *lines[1:]], "its minutes None are not"),
])
def test_a_damaged_digest_is_named(ledger: Ledger, damage: Damage, said: str) -> None:
    path = write_rollup(ledger)
    rewrite(path, damage(lines_of(path)))
    with pytest.raises(CorruptRecordError, match=r"its head's digest: .*" + re.escape(said)) as raised:
        ledger.instance_outlines(P, TIMES)
    assert str(path) in str(raised.value)


def test_a_rollup_whose_instance_has_no_state_is_named_when_it_is_rewritten(ledger: Ledger) -> None:
    documents = {"20261031T0000Z": {"instance": {**record_document(RECORDS[TIMES[0]]), "status": "DONE"}}}
    with pytest.raises(CorruptRecordError, match="the state of instance 20261031T0000Z: its status 'DONE' is none"):
        MonthRollup(P, MONTH, "rollup.json.gz", documents).to_bytes()


_STAMP = st.one_of(st.none(), st.integers(-90, 3000).map(lambda seconds: (START + timedelta(seconds=seconds)).strftime(
    "%Y-%m-%dT%H:%M:%SZ")), st.just("not a stamp"))
START = datetime(2026, 11, 1, tzinfo=timezone.utc)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.integers(0, 30 * 24 * 60 - 1), st.tuples(st.sampled_from(
    ["WAITING", "RUNNING", "SUCCEEDED", "FAILED", "TIMEDOUT", "SKIPPED", "KILLED"]), st.integers(0, 12), _STAMP,
    _STAMP, _STAMP), max_size=40))
def test_the_digest_is_what_the_states_say(tmp_path_factory: pytest.TempPathFactory,
                                           instances: dict[int, tuple[str, int, str, str, str]]) -> None:
    """Any instances of a month at any minutes, started, ended and updated at any time or none (or no stamp): the
    outlines the head gives are those of the states."""
    ledger = Ledger.of(LocalFileSystem(), local_cluster(tmp_path_factory.mktemp("c"), tmp_path_factory.mktemp("r")))
    times = {START + timedelta(minutes=minute): value for minute, value in instances.items()}
    rollup = MonthRollup(P, "202611", "").with_instances({t: RolledUp(instance(
        t, status, attempts=attempts, started=started, ended=ended, updated=updated or "2026-11-01T00:00Z"))
        for t, (status, attempts, started, ended, updated) in times.items()})
    path = Path(ledger.layout.rollup_record(P, "202611").removeprefix("file://"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(rollup.to_bytes())
    asked = [*times, START - timedelta(minutes=1)]
    states = ledger.instance_states(P, asked)
    outlines = {t: InstanceOutline.of(state) for t, state in states.items()}
    assert ledger.instance_outlines(P, asked) == outlines
    assert ledger.outline_columns(P, asked) == Outlines.of(outlines)
    assert set(states) == set(times)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60).flatmap(lambda count: st.tuples(
    st.just(count), st.lists(st.integers(0, count - 1), unique=True).map(lambda picked: tuple(sorted(picked))),
    st.integers(0, count - 1), st.integers(0, count - 1))))
def test_the_entries_taken_of_a_digest_column_are_those_of_the_whole_column(
        drawn: tuple[int, tuple[int, ...], int, int]) -> None:
    """A window's run of consecutive instances is split from the nearer end of the column (at its start, in its
    middle, at its end), any other choice from the whole: the same entries either way."""
    count, picked, one, other = drawn
    entries = [str(n * 7) for n in range(count)]
    run = tuple(range(min(one, other), max(one, other) + 1))
    for indexes in (picked, run, ()):
        assert _taken(" ".join(entries), count, indexes) == [entries[n] for n in indexes]


def test_states_are_read_from_their_own_lines_and_parsed_when_asked_for(ledger: Ledger) -> None:
    path = write_rollup(ledger)
    head, *states, _ = lines_of(path)
    assert json.loads(head)["states"] == 3
    rewrite(path, [head, *states[:2], states[2][:16] + b"not a state", b'{"instances":{not the records'])
    assert read_rollup_states(ledger.fs, ledger.layout, P, MONTH).times() == set(TIMES)
    assert ledger.instance_states(P, TIMES[:2]) == {t: InstanceState.of(RECORDS[t]) for t in TIMES[:2]}
    with pytest.raises(CorruptRecordError, match="not valid JSON"):
        ledger.instance_states(P, TIMES[2:])
    with pytest.raises(CorruptRecordError, match="not valid JSON"):
        read_rollup(ledger.fs, ledger.layout, P, MONTH)


def write_format_1(ledger: Ledger) -> Path:
    path = path_of(ledger)
    path.parent.mkdir(parents=True)
    one_line = {"format_version": 1, "process": P, "month": MONTH, "instances": {
        f"{t:%Y%m%dT%H%MZ}": {"instance": record_document(record), "attempts": [], "late_checks": []}
        for t, record in RECORDS.items()}}
    rewrite(path, [json.dumps(one_line).encode()])
    return path


def write_format_2(ledger: Ledger) -> Path:
    """The roll-up as format 2 wrote it: the head without its digest."""
    path = write_rollup(ledger)
    head, *rest = lines_of(path)
    older = json.loads(head)
    del older["digest"]
    rewrite(path, [json.dumps({**older, "format_version": 2}, sort_keys=True, separators=(",", ":")).encode(), *rest])
    return path


@pytest.mark.parametrize("write_old", [lambda ledger: write_format_1(ledger), lambda ledger: write_format_2(ledger)],
                         ids=["format 1", "format 2"])
def test_an_older_rollup_is_still_read(ledger: Ledger, write_old: Callable[[Ledger], Path]) -> None:
    write_old(ledger)
    assert ledger.instance_states(P, TIMES) == {t: InstanceState.of(record) for t, record in RECORDS.items()}
    assert ledger.instance_outlines(P, TIMES) == OUTLINES
    assert ledger.instances(P, TIMES) == RECORDS
    assert ledger.recorded_times(P) == set(TIMES)


def status_of(hour: int, status: bytes) -> Damage:
    return lambda lines: [line.replace(b'"status":"', b'"status":"' + status) if line.startswith(
        f"20261031T{hour:02d}00Z".encode()) else line for line in lines]


Damage = Callable[[list[bytes]], list[bytes]]


@pytest.mark.parametrize(("damage", "said"), [
    (lambda lines: [b'{"format_version": 2, ', *lines[1:]], "not valid JSON"),
    (status_of(2, b"X"), "the state of instance 20261031T0200Z: its status 'XSKIPPED' is none of"),
    (lambda lines: [line.replace(b'"attempts":3', b'"attempts":"3"') for line in lines],
     "the state of instance 20261031T0100Z: its attempts '3' is not a count"),
    (lambda lines: [lines[0].replace(b'"process":"hourly"', b'"process":"daily"'), *lines[1:]],
     "not the roll-up of process 'hourly'"),
    (lambda lines: [lines[0].replace(b'"states":3', b'"states":"3"'), *lines[1:]], "is not a count of state lines"),
    (lambda lines: [lines[0], lines[1], lines[1], *lines[3:]], "it holds 2 distinct instance states where its head "
                                                                "says 3"),
    (lambda lines: [lines[0], lines[1], lines[2], lines[3].replace(b" {", b"{", 1), lines[4]],
     "line 4 is not the key of an instance of 202610 and its state"),
    (lambda lines: [lines[0], lines[1].replace(b"20261031T00", b"20261131T00"), *lines[2:]],
     "line 2 is not the key of an instance of 202610"),
    (lambda lines: [lines[0], lines[1].replace(b"T0000Z", b"T0060Z"), *lines[2:]],
     "line 2 is not the key of an instance of 202610"),
    (lambda lines: [lines[0].replace(b'"states":3', b'"states":2'), *lines[1:]],
     "line 4 is not its instances' records"),
    (lambda lines: [lines[0].replace(b'"states":3', b'"states":4'), *lines[1:]],
     "line 5 is not the key of an instance of 202610"),
    (lambda lines: [lines[0].replace(b'"states":3', b'"states":9'), *lines[1:]],
     "it ends after 4 of the 9 state lines its head says"),
    (lambda lines: [lines[0].replace(b'"states":3', b'"states":' + b"9" * 20), *lines[1:]],
     "its head's states 99999999999999999999 is not a count of state lines"),
    (lambda lines: [lines[0], lines[1].replace(b'"attempts":1', b'"attempts":' + b"9" * 5000), *lines[2:]],
     "the state of instance 20261031T0000Z is not valid JSON: Exceeds the limit"),
    (lambda lines: [lines[0], lines[1].replace(b'"attempts":1', b'"attempts":1,"definition":' + b"[" * 100_000
                                               + b"]" * 100_000), *lines[2:]],
     "the state of instance 20261031T0000Z is not valid JSON"),
    # two lines damaged so that, joined, they would read as two states: each line is read alone
    (lambda lines: [lines[0], lines[1][:15] + b'{"status":"SUCCEEDED","attempts":1,"updated":"u","e":"',
                    lines[2][:15] + b'{"},{"status":"FAILED","attempts":7,"updated":"u"}', *lines[3:]],
     "the state of instance 20261031T0000Z is not valid JSON"),
    (lambda lines: [lines[0], lines[1] + b' {"status":"FAILED"}', *lines[2:]],
     "the state of instance 20261031T0000Z is not one JSON value"),
])
def test_a_damaged_head_or_state_line_is_named(ledger: Ledger, damage: Damage, said: str) -> None:
    path = write_rollup(ledger)
    rewrite(path, damage(lines_of(path)))
    with pytest.raises(CorruptRecordError, match=said) as raised:
        ledger.instance_states(P, TIMES)
    assert str(path) in str(raised.value)


def test_a_rollup_that_ends_before_its_records_is_named_by_both_readers(ledger: Ledger) -> None:
    path = write_rollup(ledger)
    rewrite(path, lines_of(path)[:-1])
    with pytest.raises(CorruptRecordError, match=r"line 5 is not its instances' records \(cut short\?\)"):
        ledger.instance_states(P, TIMES)
    with pytest.raises(CorruptRecordError, match=r"it ends before its instances' records \(line 5\)"):
        ledger.instances(P, TIMES)


def test_a_format_1_instance_that_is_not_an_instance_is_named_and_the_others_read(ledger: Ledger) -> None:
    path = write_format_1(ledger)
    one_line = json.loads(gzip.decompress(path.read_bytes()))
    one_line["instances"]["20261031T0200Z"]["instance"] = None
    rewrite(path, [json.dumps(one_line).encode()])
    assert ledger.recorded_times(P) == set(TIMES)
    assert ledger.instance_states(P, TIMES[:2]) == {t: InstanceState.of(RECORDS[t]) for t in TIMES[:2]}
    with pytest.raises(CorruptRecordError, match="the instance 20261031T0200Z is not a rolled-up instance"):
        ledger.instance_states(P, TIMES)


def test_a_rollup_cut_short_or_not_gzipped_is_named(ledger: Ledger) -> None:
    path = write_rollup(ledger)
    whole = path.read_bytes()
    path.write_bytes(whole[:len(whole) // 3])
    with pytest.raises(CorruptRecordError, match="cut short"):
        read_rollup_states(ledger.fs, ledger.layout, P, MONTH)
    path.write_bytes(b"plain text\n")
    with pytest.raises(CorruptRecordError, match="not a gzip file"):
        read_rollup_states(ledger.fs, ledger.layout, P, MONTH)


class _Reads(LocalFileSystem):
    """The local file system, counting the bytes it hands out."""

    def __init__(self) -> None:
        super().__init__()
        self.given = 0

    def read(self, path: str) -> bytes:
        data = super().read(path)
        self.given += len(data)
        return data

    def read_start(self, path: str, size: int) -> bytes | None:
        data = super().read_start(path, size)
        self.given += len(data or b"")
        return data


def test_a_digest_is_read_from_the_files_start_and_from_the_whole_file_when_its_head_is_longer(
        ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_rollup(ledger)
    head, *rest = lines_of(path)
    noise = os.urandom(20000).hex().encode()  # state lines that compress little: the file is far longer than its start
    rewrite(path, [head, *(line + b" " + noise for line in rest)])
    fs = _Reads()
    assert read_rollup_digest(fs, ledger.layout, P, MONTH).outlines(TIMES) == Outlines.of(OUTLINES)
    assert 0 < fs.given <= 16384 < path.stat().st_size

    monkeypatch.setattr("toolkit.core.ledger.rollup_records._CHUNK", 40)  # the start ends inside the head
    fs = _Reads()
    assert read_rollup_digest(fs, ledger.layout, P, MONTH).outlines(TIMES) == Outlines.of(OUTLINES)
    assert fs.given == 40 + path.stat().st_size  # the start, then the file read whole

    path.write_bytes(gzip.compress(head)[:30])  # cut inside its head: named as before, never a head half read
    with pytest.raises(CorruptRecordError, match="cut short"):
        read_rollup_digest(LocalFileSystem(), ledger.layout, P, MONTH)
    path.unlink()
    assert read_rollup_digest(fs, ledger.layout, P, MONTH).outlines(TIMES) == Outlines.of({})


def test_a_newer_format_is_refused_by_every_reader(ledger: Ledger) -> None:
    path = write_rollup(ledger)
    head, *rest = lines_of(path)
    rewrite(path, [head.replace(b'"format_version":3', b'"format_version":4'), *rest])
    with pytest.raises(NewerFormatError):
        read_rollup_states(ledger.fs, ledger.layout, P, MONTH)
    with pytest.raises(NewerFormatError):
        read_rollup_digest(ledger.fs, ledger.layout, P, MONTH)
    with pytest.raises(NewerFormatError):
        read_rollup(ledger.fs, ledger.layout, P, MONTH)


@pytest.mark.parametrize("write_old", [lambda ledger: write_format_1(ledger), lambda ledger: write_format_2(ledger)],
                         ids=["format 1", "format 2"])
def test_a_rollup_that_adds_to_an_older_month_rewrites_it_in_format_3(ledger: Ledger,
                                                                        write_old: Callable[[Ledger], Path]) -> None:
    path = write_old(ledger)
    later = datetime(2026, 10, 31, 5, tzinfo=timezone.utc)
    ledger.write_instance(instance(later))
    assert roll_up(ledger, P, datetime(2026, 11, 2, tzinfo=timezone.utc), "rollup-1").rolled == 1
    head, *states, _ = lines_of(path)
    assert json.loads(head)["format_version"] == 3 and len(states) == 4
    assert json.loads(head)["digest"] == {"minutes": [43200, 60, 2, 180, 1], "status": "SFKS", "attempts": "1 3 1 1",
                                          "ended": "540 540 - 540", "duration": "480 480 - 480"}
    assert ledger.instances(P, [*TIMES, later]) == {**RECORDS, later: instance(later)}
    assert ledger.instance_states(P, [*TIMES, later]) == {
        t: InstanceState.of(record) for t, record in {**RECORDS, later: instance(later)}.items()}


_TEXT_OR_NONE = st.one_of(st.none(), st.text(max_size=5), st.integers(), st.booleans())
_FIELDS = {"status": st.one_of(st.sampled_from(["SUCCEEDED", "FAILED", "WAITING", "RUNNING", "NOPE"]), st.integers()),
           "attempts": st.one_of(st.integers(-1, 3), st.booleans(), st.text(max_size=1)),
           "updated": _TEXT_OR_NONE, "run_id": _TEXT_OR_NONE, "started": _TEXT_OR_NONE, "ended": _TEXT_OR_NONE,
           "error": _TEXT_OR_NONE,
           "missing": st.one_of(st.none(), st.lists(st.text(max_size=3), max_size=2), st.lists(st.integers(),
                                                                                              min_size=1)),
           "definition": st.one_of(st.none(), st.just({"definition": "ab12"}), st.just([1]))}


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({}, optional=_FIELDS))
def test_a_state_is_read_as_checked_field_by_field(document: dict[str, object]) -> None:
    """from_document's quick path (every field as a state has it) agrees with the check of each field that names
    what is wrong: the same state, or the same error."""
    problem = _problem(document)
    if problem is not None:
        with pytest.raises(CorruptRecordError, match=re.escape(problem)):
            InstanceState.from_document(document, "roll-up", "20261031T0000Z")
        return
    assert InstanceState.from_document(document, "roll-up", "20261031T0000Z") == InstanceState(
        document["status"], document["attempts"], document.get("run_id"), document["updated"],  # type: ignore[arg-type]
        document.get("started"), document.get("ended"), document.get("error"),  # type: ignore[arg-type]
        tuple(document.get("missing") or ()), Provenance.read(document.get("definition")))


def test_a_state_whose_missing_is_null_waits_for_nothing_known() -> None:
    state = InstanceState.from_document({"status": "WAITING", "attempts": 0, "updated": "u", "missing": None}, "p", "k")
    assert state.missing == ()
