"""Oozie's nominal times against the toolkit's grid, for the cadences the oozie format writes.

Oozie materializes action k of a coordinator at `start + k x frequency`, added by java.util.Calendar in the
coordinator's zone from the start each time (CoordMaterializeTransitionXCommand: `effStart = origStart.clone();
effStart.add(freqTU.getCalendarUnit(), lastActionNumber * frequency)`), where coord:minutes and coord:hours are
the MINUTE unit (hours x 60), coord:days DATE and coord:months MONTH (CoordELFunctions). This runs exactly that
with the machine's Java (which pyspark needs anyway) and compares: equal everywhere but a local time inside a
spring-forward gap, which Calendar moves an hour earlier and the toolkit an hour later (oozie.py says so)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from toolkit.core.el.frequency import Frequency
from toolkit.core.el.timestamps import format_timestamp, parse_timestamp
from toolkit.orchestration.schedule.cadence import Cadence

JAVA = """
import java.text.SimpleDateFormat;
import java.util.*;

public class OozieNominalTimes {
  // args: start (yyyy-MM-ddTHH:mmZ), unit (MINUTE, DATE or MONTH), count per action, zone, actions
  public static void main(String[] a) throws Exception {
    SimpleDateFormat utc = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm'Z'");
    utc.setTimeZone(TimeZone.getTimeZone("UTC"));
    int unit = a[1].equals("MINUTE") ? Calendar.MINUTE : a[1].equals("DATE") ? Calendar.DATE : Calendar.MONTH;
    int frequency = Integer.parseInt(a[2]);
    Calendar origStart = Calendar.getInstance(TimeZone.getTimeZone(a[3]));
    origStart.setTime(utc.parse(a[0]));
    for (int k = 0; k < Integer.parseInt(a[4]); k++) {
      Calendar effStart = (Calendar) origStart.clone();
      effStart.add(unit, k * frequency);
      System.out.println(utc.format(effStart.getTime()));
    }
  }
}
"""
# Oozie's unit and count for each toolkit frequency (CoordELFunctions.ph1_coord_*)
UNITS = {"minutes": ("MINUTE", 1), "hours": ("MINUTE", 60), "days": ("DATE", 1), "months": ("MONTH", 1)}


@pytest.fixture(scope="module")
def java_program(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The command that runs the program: compiled once by a JDK's javac, else launched from source (Java 11+)."""
    if shutil.which("java") is None:
        pytest.skip("no java on PATH (pyspark needs Java 17: the Makefile checks it)")
    folder = tmp_path_factory.mktemp("java")
    source = folder / "OozieNominalTimes.java"
    source.write_text(JAVA, encoding="utf-8")
    if shutil.which("javac") is None:
        return ["java", str(source)]
    subprocess.run(["javac", "-d", str(folder), str(source)], check=True, timeout=120)
    return ["java", "-cp", str(folder), "OozieNominalTimes"]


def oozie_times(program: list[str], cadence: Cadence, actions: int) -> list[str]:
    unit, per = UNITS[cadence.frequency.unit.value]
    run = subprocess.run([*program, format_timestamp(cadence.anchor), unit,
                          str(cadence.frequency.count * per), cadence.timezone, str(actions)],
                         capture_output=True, text=True, timeout=120, check=True)
    return run.stdout.split()


def toolkit_times(cadence: Cadence, actions: int) -> list[str]:
    return [format_timestamp(cadence.grid.time_of(k)) for k in range(actions)]


@pytest.mark.parametrize(("frequency", "start", "zone", "actions"), [
    ("minutes(7)", "2026-01-01T00:03Z", "UTC", 400),
    ("hours(5)", "2026-03-20T01:00Z", "Europe/Paris", 300),  # across both 2026 changes: elapsed time
    ("hours(24)", "2026-03-20T11:00Z", "Europe/Paris", 20),  # drifts an hour in local time, in both
    ("days(1)", "2026-03-20T23:30Z", "Europe/Paris", 250),  # 00:30 local: 23 and 25 hour days
    ("days(3)", "2026-01-01T05:00Z", "America/New_York", 200),
    ("months(2)", "2026-01-15T09:30Z", "Europe/Paris", 60),  # from mid-month, winter and summer times
    ("months(1)", "2026-01-31T12:00Z", "UTC", 40),  # clamped to each month's end, from the start each time
])
@pytest.mark.jvm
def test_oozie_materializes_the_toolkits_instances(java_program: list[str], frequency: str, start: str, zone: str,
                                                    actions: int) -> None:
    cadence = Cadence(Frequency.parse(frequency), parse_timestamp(start), zone)
    assert oozie_times(java_program, cadence, actions) == toolkit_times(cadence, actions)


@pytest.mark.jvm
def test_a_local_time_in_a_spring_forward_gap_is_moved_the_other_way(java_program: list[str]) -> None:
    """02:30 Europe/Paris does not exist on 2026-03-29: Calendar gives 01:30 CET, the toolkit 03:30 CEST."""
    cadence = Cadence(Frequency.parse("days(1)"), parse_timestamp("2026-03-27T01:30Z"), "Europe/Paris")
    oozie, toolkit = oozie_times(java_program, cadence, 5), toolkit_times(cadence, 5)
    assert toolkit == ["2026-03-27T01:30Z", "2026-03-28T01:30Z", "2026-03-29T01:30Z", "2026-03-30T00:30Z",
                       "2026-03-31T00:30Z"]
    assert oozie == [*toolkit[:2], "2026-03-29T00:30Z", *toolkit[3:]]
