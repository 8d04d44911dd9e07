"""The settings of `toolkit trigger --notify airflow` (cluster properties): what is missing or wrong is one sentence
naming the property, exit 2, once the sweep of due runs is done; a secret is never taken from the repo nor echoed.
One notifier per cluster: a second is told who runs (exit 5). A request Airflow refuses leaves its event pending."""

from __future__ import annotations

import socket
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread

import pytest

from tests.local_cluster import hourly_feed_yaml, local_cluster_yaml
from toolkit.cli.main import main as toolkit
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.locks import LeaseDetails
from toolkit.core.ledger.records import PublicationFacts
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.orchestration.schedule.airflow_events.settings import airflow_settings


def repo_with(tmp_path: Path, **properties: str) -> Path:
    repo = tmp_path / "conf"
    for folder in ("clusters", "feeds", "processes"):
        (repo / folder).mkdir(parents=True, exist_ok=True)
    named = {name.replace("__", "-").replace("_", "."): value for name, value in properties.items()}
    (repo / "clusters/primary.yaml").write_text(local_cluster_yaml(tmp_path / "primary", properties=named))
    return repo


def trigger(repo: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    code = toolkit(["trigger", "--repo", str(repo), "--cluster", "primary", "--spark-submit", "/bin/true",
                    "--log-dir", str(repo.parent / "logs"), *extra])
    return code, capsys.readouterr().err


def test_no_url_says_which_property_to_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = trigger(repo_with(tmp_path), capsys, "--notify", "airflow")
    assert code == 2
    assert "set the property airflow.url of cluster 'primary'" in err and "Traceback" not in err
    # the sweep of due runs went first: a notifier that cannot run never keeps data-triggered runs from starting
    assert (tmp_path / "primary/working/ledger").exists()


def test_the_cluster_property_turns_it_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = trigger(repo_with(tmp_path, trigger_notify="airflow"), capsys)
    assert code == 2 and "airflow.url" in err


def test_a_password_in_the_repo_is_refused_and_not_echoed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = repo_with(tmp_path, airflow_url="http://127.0.0.1:9", airflow_username="bot",
                     airflow_password="s3cret-value")
    code, err = trigger(repo, capsys, "--notify", "airflow")
    assert code == 2
    assert err.strip().splitlines() == [
        "toolkit: The property airflow.password of cluster 'primary' puts a secret in the config repo, which is "
        "refused: remove it and name where the secret is instead (airflow.token-env, or airflow.password-env or "
        "airflow.password-file with airflow.username)."]


@pytest.mark.parametrize(("properties", "expected"), [
    ({"airflow_url": "ftp://airflow:8080"}, "not an http:// or https:// URL"),
    ({"airflow_url": "http://bot:s3cret-value@airflow:8080"}, "holds credentials, which the config repo must not"),
    ({"airflow_url": "http://airflow:8080", "airflow_token__env": "NO_SUCH_VARIABLE_FT"},
     "The environment variable NO_SUCH_VARIABLE_FT that the property airflow.token-env"),
    ({"airflow_url": "http://airflow:8080", "airflow_token__env": "eyJhbGciOi.s3cret-token"},
     "The property airflow.token-env of cluster 'primary' is not an environment variable's name"),
    ({"airflow_url": "http://airflow:8080", "airflow_username": "bot"},
     "needs its password from exactly one of the properties airflow.password-env"),
    ({"airflow_url": "http://airflow:8080", "airflow_username": "bot", "airflow_password__file": "/no/such/file"},
     "The file /no/such/file that the property airflow.password-file"),
    ({"airflow_url": "http://airflow:8080", "airflow_password__env": "X"}, "but airflow.username is not set"),
    ({"airflow_url": "http://airflow:8080", "airflow_timeout__seconds": "soon"}, "not a number of seconds"),
])
def test_bad_settings_name_the_property(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        properties: dict[str, str], expected: str) -> None:
    code, err = trigger(repo_with(tmp_path, **properties), capsys, "--notify", "airflow")
    assert code == 2 and expected in err and "Traceback" not in err and "s3cret" not in err
    assert "s3cret-value" not in err


def test_an_unknown_notification_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = trigger(repo_with(tmp_path), capsys, "--notify", "pager")
    assert code == 2 and "--notify names 'pager'" in err


def test_secrets_come_from_the_environment_or_a_file(tmp_path: Path) -> None:
    (tmp_path / "pw").write_text("from-a-file\n")
    by_file = repo_with(tmp_path / "a", airflow_url="https://airflow:8080/", airflow_username="bot",
                        airflow_password__file=str(tmp_path / "pw"))
    settings = airflow_settings(ConfigRepo.load(by_file).cluster("primary"), {})
    assert (settings.url, settings.username, settings.password, settings.token) == (
        "https://airflow:8080", "bot", "from-a-file", None)
    assert "from-a-file" not in repr(settings)
    by_env = repo_with(tmp_path / "b", airflow_url="http://airflow:8080", airflow_token__env="AF_TOKEN")
    settings = airflow_settings(ConfigRepo.load(by_env).cluster("primary"), {"AF_TOKEN": "tok-123"})
    assert (settings.token, settings.username, settings.timeout, settings.budget) == ("tok-123", None, 5.0, 30.0)


def test_a_second_notifier_is_told_who_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    repo = repo_with(tmp_path, airflow_url=f"http://127.0.0.1:{port}")
    ledger = Ledger.of(LocalFileSystem(), ConfigRepo.load(repo).cluster("primary"))
    lock = ledger._lock(ledger.layout.action_lock_folder("airflow-events"), "lock")
    assert lock.try_acquire("first-notifier", LeaseDetails(action="airflow-events")).taken
    code, err = trigger(repo, capsys, "--notify", "airflow")
    assert code == 5
    assert "The Airflow notifier of cluster 'primary' is being run by run first-notifier on " in err
    lock.release()
    code, err = trigger(repo, capsys, "--notify", "airflow")
    assert (code, err) == (0, "")  # nothing to deliver: Airflow is not even asked


def test_the_airflow_tests_say_how_to_get_airflow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.airflow_venv import airflow_bin

    monkeypatch.setenv("FEED_TOOLKIT_AIRFLOW_VENV", str(tmp_path / "no-venv"))
    with pytest.raises(pytest.fail.Exception, match=r"is not installed in .*no-venv .*run `make airflow`"):
        airflow_bin("airflow")




def test_a_refused_request_leaves_the_event_pending(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An HTTP server on loopback answering 404 to everything (a wrong airflow.url path, say): the sweep is done,
    the event stays pending for the next call, exit 1 with one sentence."""
    class NotFound(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            self.send_error(404)

        do_POST = do_GET  # noqa: N815

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        repo = repo_with(tmp_path, airflow_url=f"http://127.0.0.1:{server.server_address[1]}")
        (repo / "feeds/clicks.yaml").write_text(hourly_feed_yaml("clicks"))
        ledger = Ledger.of(LocalFileSystem(), ConfigRepo.load(repo).cluster("primary"))
        ledger.record_publication(PublicationFacts("clicks", "primary", datetime(2026, 1, 1, tzinfo=timezone.utc),
                                                   producer="external", run_id="r1",
                                                   location=f"file://{tmp_path}/primary/data/clicks/2026/01/01/00",
                                                   fingerprint=None))
        capsys.readouterr()
        code = toolkit(["trigger", "--repo", str(repo), "--cluster", "primary", "--spark-submit", "/bin/true",
                        "--log-dir", str(tmp_path / "logs"), "--notify", "airflow"])
        out, err = capsys.readouterr()
    finally:
        server.shutdown()
        server.server_close()
    assert code == 1
    assert "airflow_delivered=0 airflow_pending=1" in out
    assert "refused a request" in err and "stay pending" in err and "Traceback" not in err
