"""The Oozie REST client against the STAND-IN of Oozie's REST API (tests/oozie_server.py; no job runs here, so no
step starts): the configuration XML arrives as it was given (escaped), a refusal is one sentence with Oozie's error
code and message, a running job is suspended and resumed, an unreachable server is one sentence naming it,
Kerberos without its package says what to install; and the pig wrapper is a valid Oozie workflow 0.5 (the vendored
schema) holding Falcon's parameters."""

from __future__ import annotations

import importlib.util
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from lxml import etree

from tests.oozie_server import StandInOozie, stand_in_oozie
from toolkit.core.entities.model import Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.extensions.workflow_engines.oozie_client import OozieClient, OozieError
from toolkit.extensions.workflow_engines.oozie_settings import OozieAccess
from toolkit.extensions.workflow_engines.pig_workflow import pig_workflow_xml

SCHEMAS = Path(__file__).resolve().parents[2] / "oozie_schemas"
TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"


@pytest.fixture
def server() -> Iterator[StandInOozie]:
    with stand_in_oozie() as stand_in:
        yield stand_in


def _client(url: str, kerberos: bool = False) -> OozieClient:
    return OozieClient(OozieAccess(url=url, user="falcon", kerberos=kerberos, ca_file=None, poll_seconds=1.0),
                       timeout=5)


def test_the_stand_in_receives_the_configuration_as_given_and_the_job_waits_in_prep(server: StandInOozie) -> None:
    conf = {"oozie.wf.application.path": "file:///apps/x", "filter": "a < b && c > 'd'", "user.name": "falcon"}
    job = _client(server.url).submit(conf)
    assert server.jobs[job].conf == conf
    assert _client(server.url).info(job).status == "PREP"
    assert server.calls[0] == ("POST", "/oozie/v2/jobs", {"user.name": "falcon"})


def test_a_refusal_of_the_stand_in_is_one_sentence_with_oozies_code_and_message(server: StandInOozie) -> None:
    client = _client(server.url)
    with pytest.raises(OozieError) as unknown:
        client.info("0000042-000000000000000-oozie-oozi-W")
    assert str(unknown.value) == (f"The Oozie server {server.url} refused GET job: E0604: Job does not exist "
                                  "[0000042-000000000000000-oozie-oozi-W]")
    with pytest.raises(OozieError) as no_path:
        client.submit({"user.name": "falcon"})
    assert str(no_path.value) == (f"The Oozie server {server.url} refused POST jobs: E0405: Submission request "
                                  "doesn't have any application or lib path")


def test_a_running_job_is_suspended_and_resumed_and_a_job_in_another_state_refused(server: StandInOozie) -> None:
    client = _client(server.url)
    job = client.submit({"oozie.wf.application.path": "file:///apps/x"})
    with pytest.raises(OozieError) as prep:
        client.suspend(job)
    assert str(prep.value) == (f"The Oozie server {server.url} refused PUT job: E1003: Invalid workflow job state, job "
                               f"{job} is PREP, not RUNNING")
    server.jobs[job].status = "RUNNING"  # as a started job is (no step runs here)
    client.suspend(job)
    assert client.info(job).status == "SUSPENDED"
    client.resume(job)
    assert client.info(job).status == "RUNNING"
    assert [call[2] for call in server.calls if call[0] == "PUT"] == [
        {"action": "suspend", "user.name": "falcon"}, {"action": "suspend", "user.name": "falcon"},
        {"action": "resume", "user.name": "falcon"}]


def test_an_unreachable_server_is_one_sentence_naming_it() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    url = f"http://127.0.0.1:{port}/oozie"
    with pytest.raises(OozieError) as raised:
        _client(url).info("x")
    assert str(raised.value).startswith(f"The Oozie server {url} cannot be reached (GET job): ")
    assert str(raised.value).endswith("; check the cluster's workflow interface and that the server runs.")


@pytest.mark.skipif(importlib.util.find_spec("spnego") is not None, reason="the Kerberos package is installed")
def test_kerberos_without_its_package_says_what_to_install(server: StandInOozie) -> None:
    with pytest.raises(UsageError) as raised:
        _client(server.url, kerberos=True).info("x")
    assert str(raised.value) == (f"The Oozie server {server.url} is reached with Kerberos (oozie.client.auth), and "
                                 "the Kerberos support is not installed: pip install 'feed-toolkit[kerberos]'.")


def _template_process() -> Process:
    return ConfigRepo.load(TEMPLATE).process("hourly-clicks-summary")


def test_the_pig_wrapper_is_a_valid_oozie_workflow_with_falcons_parameters() -> None:
    text = pig_workflow_xml(_template_process(), "hdfs://nn:8020/apps/count.pig", ["hdfs://nn:8020/lib/udf.jar"],
                            set(), set())
    document = etree.fromstring(text.encode())
    etree.XMLSchema(etree.parse(str(SCHEMAS / "oozie-workflow-0.5.xsd"))).assertValid(document)
    ns = {"w": "uri:oozie:workflow:0.5"}
    assert document.xpath("//w:pig/w:script/text()", namespaces=ns) == ["hdfs://nn:8020/apps/count.pig"]
    assert document.xpath("//w:pig/w:param/text()", namespaces=ns) == ["clicks=${clicks}", "summary=${summary}"]
    assert document.xpath("//w:pig/w:archive/text()", namespaces=ns) == ["hdfs://nn:8020/lib/udf.jar"]
    assert document.xpath("//w:property[w:name='oozie.action.sharelib.for.pig']/w:value/text()",
                          namespaces=ns) == ["pig,hcatalog,hive"]


def test_the_pig_wrapper_passes_table_names_and_properties_as_falcon_did() -> None:
    text = pig_workflow_xml(_template_process(), "/apps/count.pig", [], {"clicks"}, {"summary"})
    params = etree.fromstring(text.encode()).xpath("//w:pig/w:param/text()",
                                                   namespaces={"w": "uri:oozie:workflow:0.5"})
    assert params == ["falcon_clicks_database=${wf:conf('falcon_input_database')}",
                      "falcon_clicks_table=${wf:conf('falcon_input_table')}",
                      "falcon_clicks_filter=${wf:conf('falcon_input_partition_filter_pig')}",
                      "falcon_summary_database=${wf:conf('falcon_output_database')}",
                      "falcon_summary_table=${wf:conf('falcon_output_table')}",
                      "falcon_summary_partitions=${wf:conf('falcon_output_dataout_partitions')}"]
