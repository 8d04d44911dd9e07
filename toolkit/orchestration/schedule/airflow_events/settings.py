"""Where the Airflow API server is and how to authenticate to it, from the cluster's properties. Secrets never
live in the config repo: a bearer token or a password comes from an environment variable or a file a property
names, and a property that would hold a password itself is refused."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from toolkit.core.entities.model import Cluster
from toolkit.core.entities.secret_sources import variable_name
from toolkit.errors import UsageError

NOTIFY_PROPERTY = "trigger.notify"
URL = "airflow.url"
TOKEN_ENV = "airflow.token-env"
USERNAME = "airflow.username"
PASSWORD_ENV = "airflow.password-env"
PASSWORD_FILE = "airflow.password-file"
TIMEOUT = "airflow.timeout-seconds"
BUDGET = "airflow.budget-seconds"
FORBIDDEN = ("airflow.password", "airflow.token")
DEFAULT_TIMEOUT, DEFAULT_BUDGET = 5.0, 30.0


@dataclass(frozen=True)
class AirflowSettings:
    """`url` is the API server's base URL (no trailing '/'); `token` a bearer token given as is, or `username` and
    `password` for a JWT from the server's token endpoint; neither: requests carry no credentials (an Airflow
    behind a proxy that authenticates). `timeout` bounds each request, `budget` the whole call (seconds)."""

    url: str
    token: str | None = field(default=None, repr=False)
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    timeout: float = DEFAULT_TIMEOUT
    budget: float = DEFAULT_BUDGET


def notify_targets(cluster: Cluster, given: list[str]) -> list[str]:
    """The notifications a sweep sends: `--notify` when given, else the cluster property `trigger.notify`
    (comma-separated); only `airflow` exists."""
    names = given or [n.strip() for n in str(cluster.properties.get(NOTIFY_PROPERTY, "")).split(",") if n.strip()]
    for name in names:
        if name != "airflow":
            source = "--notify" if given else f"the property {NOTIFY_PROPERTY} of cluster '{cluster.name}'"
            raise UsageError(f"{source} names {name!r}, which is not a notification the sweep sends: use 'airflow'.")
    return sorted(set(names))


def airflow_settings(cluster: Cluster, environ: Mapping[str, str] | None = None) -> AirflowSettings:
    """The settings of cluster `cluster`, with the secret read from where its properties point; UsageError (exit 2)
    naming the property for anything missing or wrong."""
    env = os.environ if environ is None else environ
    props = {key: str(value) for key, value in cluster.properties.items()}
    where = f"of cluster '{cluster.name}'"
    for name in FORBIDDEN:
        if name in props:
            raise UsageError(f"The property {name} {where} puts a secret in the config repo, which is refused: "
                             f"remove it and name where the secret is instead ({TOKEN_ENV}, or {PASSWORD_ENV} or "
                             f"{PASSWORD_FILE} with {USERNAME}).")
    url = props.get(URL, "").strip().rstrip("/")
    if not url:
        raise UsageError(f"Events to Airflow need the Airflow API server: set the property {URL} {where} (for "
                         "example http://airflow.example.com:8080).")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"The property {URL} {where} is {url!r}, not an http:// or https:// URL of the Airflow API "
                         "server.")
    if parts.username is not None or parts.password is not None:
        raise UsageError(f"The property {URL} {where} holds credentials, which the config repo must not: remove them "
                         f"from the URL and use {TOKEN_ENV}, or {USERNAME} with {PASSWORD_ENV} or {PASSWORD_FILE}.")
    timeout, budget = _seconds(props, TIMEOUT, DEFAULT_TIMEOUT, where), _seconds(props, BUDGET, DEFAULT_BUDGET, where)
    if TOKEN_ENV in props:
        if USERNAME in props:
            raise UsageError(f"The properties {TOKEN_ENV} and {USERNAME} {where} are two ways to authenticate to "
                             "Airflow: keep one.")
        return AirflowSettings(url, token=_from_env(env, props[TOKEN_ENV], TOKEN_ENV, where), timeout=timeout,
                               budget=budget)
    if USERNAME in props:
        return AirflowSettings(url, username=props[USERNAME], password=_password(props, env, where),
                               timeout=timeout, budget=budget)
    for name in (PASSWORD_ENV, PASSWORD_FILE):
        if name in props:
            raise UsageError(f"The property {name} {where} names a password but {USERNAME} is not set: add the "
                             "Airflow user's name.")
    return AirflowSettings(url, timeout=timeout, budget=budget)


def _password(props: Mapping[str, str], env: Mapping[str, str], where: str) -> str:
    if (PASSWORD_ENV in props) == (PASSWORD_FILE in props):
        raise UsageError(f"The Airflow user of {USERNAME} {where} needs its password from exactly one of the "
                         f"properties {PASSWORD_ENV} (an environment variable's name) or {PASSWORD_FILE} (a file).")
    if PASSWORD_ENV in props:
        return _from_env(env, props[PASSWORD_ENV], PASSWORD_ENV, where)
    path = Path(props[PASSWORD_FILE]).expanduser()
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError as err:
        raise UsageError(f"The file {path} that the property {PASSWORD_FILE} {where} names cannot be read "
                         f"({err.strerror}): create it, readable by this user, with the Airflow password.") from None
    if not text:
        raise UsageError(f"The file {path} that the property {PASSWORD_FILE} {where} names is empty: write the "
                         "Airflow password in it.")
    return text


def _from_env(env: Mapping[str, str], variable: str, prop: str, where: str) -> str:
    variable = variable_name(variable, prop, where)
    value = env.get(variable, "").strip()
    if not value:
        raise UsageError(f"The environment variable {variable} that the property {prop} {where} names is not set or "
                         "empty: export it for the sweep (crontab, scheduler) before calling it.")
    return value


def _seconds(props: Mapping[str, str], name: str, default: float, where: str) -> float:
    if name not in props:
        return default
    try:
        value = float(props[name])
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise UsageError(f"The property {name} {where} is {props[name]!r}, not a number of seconds above 0.")
    return value
