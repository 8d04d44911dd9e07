"""An element that Falcon's XSD does not allow where it stands: Falcon's server refuses the entity on submit (JAXB
against the schema), so `toolkit convert-falcon` refuses the file too, one line per element naming its path and what
the schema expects there, writes nothing for that file, and exits 1."""

from __future__ import annotations

from pathlib import Path

from tests.unit.convert.conftest import FALCON, Run
from tests.unit.convert.test_convert_reports import write

SUMMARY_OF_1 = (
    "toolkit: 1 thing not converted as written (listed above); everything else was written: fix or redo them by hand."
)

FEED_WITH_FLAG_LAST = """\
<feed name="clicks" xmlns="uri:falcon:feed:0.1">
    <frequency>hours(1)</frequency>
    <clusters>
        <cluster name="primary" type="source">
            <validity start="2026-01-01T00:00Z" end="2027-01-01T00:00Z"/>
            <retention limit="days(7)" action="delete"/>
        </cluster>
    </clusters>
    <locations><location type="data" path="/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"/></locations>
    <ACL owner="etl" group="etl" permission="0755"/>
    <schema location="/none" provider="none"/>
    <availabilityFlag>_SUCCESS</availabilityFlag>
</feed>
"""

PROCESS_WITH_TIMEZONE_FIRST_IN_ITS_CLUSTER = """\
<process name="summary" xmlns="uri:falcon:process:0.1">
    <clusters>
        <cluster name="primary"><validity start="2026-01-01T00:00Z" end="2027-01-01T00:00Z"/></cluster>
        <cluster name="backup">
            <sla shouldEndIn="hours(2)"/>
            <validity start="2026-01-01T00:00Z" end="2027-01-01T00:00Z"/>
        </cluster>
    </clusters>
    <parallel>1</parallel>
    <order>FIFO</order>
    <frequency>hours(1)</frequency>
    <workflow engine="spark" path="/apps/summary"/>
</process>
"""


def test_an_element_out_of_falcons_order_refuses_its_file_naming_the_path_and_what_the_schema_expects(
    convert: Run, tmp_path: Path
) -> None:
    feed = write(tmp_path, "feed.xml", FEED_WITH_FLAG_LAST)
    cluster = FALCON / "primary-cluster.xml"
    code, out, err = convert(feed, cluster, "--out", tmp_path / "conf")
    assert code == 1
    assert out == f"wrote {tmp_path / 'conf' / 'clusters' / 'primary.yaml'}\n"  # the other file is written
    assert err.splitlines() == [
        f"{feed}: /feed/availabilityFlag: Falcon's schema feed-0.1.xsd does not allow this element where it stands "
        "(it expects one of <properties>, <lifecycle> there), so Falcon refuses this feed on submit and nothing was "
        "written for this file: put the elements in the schema's order.",
        SUMMARY_OF_1,
    ]
    assert not (tmp_path / "conf" / "feeds").exists()


def test_a_nested_misplaced_element_is_named_by_its_parents_and_the_one_element_expected(
    convert: Run, tmp_path: Path
) -> None:
    process = write(tmp_path, "process.xml", PROCESS_WITH_TIMEZONE_FIRST_IN_ITS_CLUSTER)
    code, out, err = convert(process, "--out", tmp_path / "conf")
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        f"{process}: /process/clusters/cluster[@name='backup']/sla: Falcon's schema process-0.1.xsd does not allow "
        "this element where it stands (it expects <validity> there), so Falcon refuses this process on submit and "
        "nothing was written for this file: put the elements in the schema's order.",
        SUMMARY_OF_1,
    ]


def test_the_same_elements_in_falcons_order_convert_with_nothing_reported(convert: Run, tmp_path: Path) -> None:
    lines = FEED_WITH_FLAG_LAST.splitlines(keepends=True)
    flag = lines.pop(-2)
    lines.insert(1, flag)  # where feed-0.1.xsd puts it: before <frequency>
    feed = write(tmp_path, "feed.xml", "".join(lines))
    code, out, err = convert(feed, "--out", tmp_path / "conf")
    assert (code, out, err) == (0, f"wrote {tmp_path / 'conf' / 'feeds' / 'clicks.yaml'}\n", "")


def test_an_element_after_a_missing_one_that_falcon_requires_is_not_out_of_order(convert: Run, tmp_path: Path) -> None:
    """Falcon requires a feed's <schema>, the toolkit does not: <properties> right after <ACL> is where Falcon's order
    puts it, so nothing is refused (the libxml2 error says <schema> is expected there)."""
    feed = write(tmp_path, "feed.xml", FEED_WITH_FLAG_LAST.replace(
        '    <schema location="/none" provider="none"/>\n    <availabilityFlag>_SUCCESS</availabilityFlag>\n',
        '    <properties><property name="owner" value="etl"/></properties>\n'))
    code, out, err = convert(feed, "--out", tmp_path / "conf")
    assert (code, out, err) == (0, f"wrote {tmp_path / 'conf' / 'feeds' / 'clicks.yaml'}\n", "")


def test_an_element_after_the_last_one_falcon_allows_is_refused_saying_no_element_may_follow(
    convert: Run, tmp_path: Path
) -> None:
    feed = write(tmp_path, "feed.xml", FEED_WITH_FLAG_LAST.replace(
        "    <availabilityFlag>_SUCCESS</availabilityFlag>\n",
        "    <lifecycle><retention-stage><frequency>hours(10)</frequency></retention-stage></lifecycle>\n"
        '    <properties><property name="owner" value="etl"/></properties>\n'))
    code, out, err = convert(feed, "--out", tmp_path / "conf")
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        f"{feed}: /feed/properties: Falcon's schema feed-0.1.xsd does not allow this element where it stands (it "
        "expects no further element there), so Falcon refuses this feed on submit and nothing was written for this "
        "file: put the elements in the schema's order.",
        SUMMARY_OF_1,
    ]
