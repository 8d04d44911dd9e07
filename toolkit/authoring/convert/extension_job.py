"""A Falcon mirroring job's properties file (what `falcon extension -submit -extensionName E -file F` took) as the
toolkit's mirror data.

The job's properties keep their names (`sourceDir`, `targetCluster`, `distcpMaxMaps` ...) except where every other
kind groups them: `jobName` is the name, `jobValidityStart`/`End` the `validity`, `jobRetry*` the `retry`,
`jobAcl*` the `ACL`, `jobNotification*` the `notification`, `jobTags` the `tags`. Comma-separated lists
(`sourceDir`, `sourceDatabases`, `sourceTables`) become lists; the snapshot extension's `maxMaps` and `mapBandwidth`
are `distcpMaxMaps` and `distcpMapBandwidth`, as the other two extensions call them. The extension is the file's
`extensionName` when it has one, else told by its keys. The HiveServer2 properties are reported, not converted:
the toolkit reads and writes Hive through the clusters' metastores (their registry interface).

The file is read as Java reads a properties file, through jproperties (comments, `=`, `:` or blank separators, line
continuations, `\\uXXXX` escapes); UTF-8 when it decodes as such, else ISO-8859-1 as Java reads it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from jproperties import Properties, PropertyError  # type: ignore[import-untyped]

from toolkit.authoring.convert.falcon_xml import MAX_NAME, Conversion, ConvertedEntity
from toolkit.authoring.convert.tracking import MAX_REPORTS, Report
from toolkit.authoring.convert.values import fields, integer, parse_tags
from toolkit.core.entities.kinds import Kind
from toolkit.errors import UsageError

EXTENSIONS = {"hdfs-mirroring": "hdfs", "hdfs-snapshot-mirroring": "hdfs-snapshot", "hive-mirroring": "hive"}
# The key only one extension's jobs have, when the file names no extensionName.
_TELLING_KEYS = {"sourceSnapshotDir": "hdfs-snapshot", "sourceDatabases": "hive", "sourceHiveServer2Uri": "hive",
                 "sourceDir": "hdfs"}
_MAX_BYTES = 1 << 20  # a job's properties are a few kilobytes; a bigger file is not one
_FILE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
_BOOLEANS = {"true": True, "false": False}  # Java's Boolean.parseBoolean, without its "anything else is false"
_KEY = re.compile(r"[ \t\f]*([^#!\s=:\\][^\s=:\\]*)")  # a line's key up to its separator
# Falcon's builder fills a retry the job leaves partly unsaid with these (ExtensionProcessBuilderUtils).
_RETRY_DEFAULTS = {"policy": "periodic", "delay": "minutes(30)", "attempts": 3}

_FILE_OPTIONS = ("ignoreErrors", "skipChecksum", "removeDeletedFiles", "preserveBlockSize",
                 "preserveReplicationNumber", "preservePermission", "preserveUser", "preserveGroup",
                 "preserveChecksumType", "preserveAcl", "preserveXattr", "preserveTimes")
_HIVE_SERVER = ("sourceHiveServer2Uri", "targetHiveServer2Uri", "sourceHiveServer2ExtraOpts",
                "targetHiveServer2ExtraOpts", "sourceHive2KerberosPrincipal", "targetHive2KerberosPrincipal")


def convert_extension_job(file: Path) -> Conversion:
    """Read and convert `file`; UsageError (exit 2) when it is not a readable mirroring job's properties file."""
    job = _Job(file, *_read(file))
    type_ = job.extension_type()
    data = fields(
        ("kind", "mirror"),
        ("name", job.take("jobName")),
        ("type", type_),
        ("tags", job.tags()),
        ("jobClusterName", job.take("jobClusterName")),
        ("jobFrequency", job.take("jobFrequency")),
        ("jobTimezone", job.take("jobTimezone")),
        ("validity", job.group(("start", "jobValidityStart", str), ("end", "jobValidityEnd", str))),
        ("retry", job.retry()),
        ("notification", job.group(("type", "jobNotificationType", str), ("to", "jobNotificationReceivers", str))),
        ("ACL", job.group(("owner", "jobAclOwner", str), ("group", "jobAclGroup", str),
                          ("permission", "jobAclPermission", str))),
        ("sourceCluster", job.take("sourceCluster")),
        ("targetCluster", job.take("targetCluster")),
        *_TYPE_FIELDS[type_](job),
        ("tdeEncryptionEnabled", job.take("tdeEncryptionEnabled", _boolean)),
    )
    job.report_leftovers(type_)
    name = data.get("name")
    if not isinstance(name, str) or not _FILE_NAME.fullmatch(name) or len(name) > MAX_NAME:
        what = "no jobName" if name is None else f"the jobName {name!r}, which cannot be an entity name"
        raise UsageError(f"{file} has {what}: give the job a name of letters, digits and hyphens, starting with a "
                         f"letter, at most {MAX_NAME} characters.")
    return Conversion(file, ConvertedEntity(Kind.MIRROR, name, data), tuple(job.reports))


def _read(file: Path) -> tuple[dict[str, str], str]:
    """The file's properties in file order, and its text."""
    try:
        with file.open("rb") as stream:
            content = stream.read(_MAX_BYTES + 1)
    except OSError as err:
        raise UsageError(f"Cannot read {file}: {err.strerror or err}; pass a readable properties file.") from None
    if len(content) > _MAX_BYTES:
        raise UsageError(f"{file} is larger than {_MAX_BYTES >> 20} MiB, which no job's properties are: pass the "
                         "properties file of a Falcon mirroring job.")
    if b"\x00" in content:
        raise UsageError(f"{file} is a binary file (a NUL byte), not a properties file: pass the properties file of "
                         "a Falcon mirroring job.")
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        text = content.decode("iso-8859-1")
    text = text.removeprefix("\ufeff")  # a byte-order mark, which Java would read into the first key
    parsed = Properties()
    try:
        parsed.load(text)
    except (PropertyError, UnicodeError, ValueError) as err:
        line = re.search(r":(\d+):", str(err))
        where = f" on line {line.group(1)}" if line else ""
        raise UsageError(f"{file} is not a properties file Java could read: a malformed \\u escape or line{where}; "
                         "fix it, or pass the job's properties file.") from None
    return {str(key): str(value) for key, value in parsed.properties.items()}, text


class _Job:
    """The properties of one job, each taken at most once; what is left is reported."""

    def __init__(self, file: Path, values: dict[str, str], text: str) -> None:
        self.file = file
        self.values = values
        self.text = text
        self.taken: set[str] = set()
        self.reports: list[Report] = []
        self._unlisted = 0

    def extension_type(self) -> str:
        """The mirror type of the job's extension: its `extensionName`, else the one its keys tell."""
        named = self.take("extensionName")
        if named is not None:
            if named not in EXTENSIONS:
                raise UsageError(f"{self.file}: extensionName {named!r} is not a mirroring extension the toolkit "
                                 f"converts ({', '.join(EXTENSIONS)}).")
            return EXTENSIONS[named]
        telling = [key for key in _TELLING_KEYS if key in self.values]
        told = {_TELLING_KEYS[key] for key in telling}
        if not told:
            raise UsageError(f"{self.file} has none of sourceDir, sourceSnapshotDir and sourceDatabases, the keys that "
                             "tell a mirroring job's extension: pass the properties file of an hdfs-mirroring, "
                             "hdfs-snapshot-mirroring or hive-mirroring job, or add extensionName=<its extension>.")
        if len(told) > 1:
            raise UsageError(f"{self.file} has keys of {' and '.join(sorted(told))} mirrors ({', '.join(telling)}): "
                             "pass the properties file of one job, or add extensionName=<its extension>.")
        return told.pop()

    def take(self, key: str, convert: Callable[[str], Any] = str) -> Any:
        """The value of `key` converted (None when absent), marked as converted."""
        if key not in self.values:
            return None
        self.taken.add(key)
        return convert(self.values[key].strip())

    def group(self, *members: tuple[str, str, Callable[[str], Any]]) -> dict[str, Any] | None:
        """The YAML mapping whose `(field, key, convert)` members are given; None when none is."""
        grouped = fields(*((field, self.take(key, convert)) for field, key, convert in members))
        return grouped or None

    def tags(self) -> dict[str, str] | None:
        text = self.take("jobTags")
        return None if text is None else parse_tags(text, lambda message: self._add(Report(self._where("jobTags"),
                                                                                        f"jobTags: {message}")))

    def retry(self) -> dict[str, Any] | None:
        given = self.group(("policy", "jobRetryPolicy", str), ("delay", "jobRetryDelay", str),
                           ("attempts", "jobRetryAttempts", integer), ("onTimeout", "jobRetryOnTimeout", _boolean))
        return None if given is None else {**_RETRY_DEFAULTS, **given}

    @cached_property
    def key_lines(self) -> _KeyLines:
        """Where the keys are set, read once: a file of thousands of reports is not read once each."""
        return _key_lines(self.text)

    def report(self, key: str, message: str) -> None:
        """A report on the property `key`: `message` goes on from its name."""
        self._add(Report(self._where(key), f"the property {key!r} {message}"))

    def _where(self, key: str) -> str:
        line = self.key_lines.lines.get(key)
        return str(self.file) if line is None else f"{self.file}:{line}"

    def _add(self, report: Report) -> None:
        """A report, or one more counted past the first MAX_REPORTS (listing a million costs more than converting)."""
        if len(self.reports) < MAX_REPORTS:
            self.reports.append(report)
        else:
            self._unlisted += 1

    def report_leftovers(self, type_: str) -> None:
        for key in self.values:
            if key in self.taken:
                continue
            if key in _HIVE_SERVER:
                self.report(key, "was not converted: the toolkit reads and writes Hive through the clusters' "
                            "metastores (the registry interface of clusters/<name>.yaml), not HiveServer2; check that "
                            "the source and target clusters name theirs.")
            else:
                self.report(key, f"is not one of {type_} mirrors, so it was not converted: redo by hand what it did, "
                            "or drop it.")
        for key, line in self.key_lines.repeated.items():
            self._add(Report(f"{self.file}:{line}", f"the property {key!r} is given again here: its last value was "
                             "converted, as Java reads the file; keep one."))
        if self._unlisted:
            self.reports.append(Report(str(self.file), f"{self._unlisted:,} more things were not converted and are "
                                       f"not listed (only the first {MAX_REPORTS:,} are): fix those, then convert "
                                       "again."))


def _hdfs_fields(job: _Job) -> list[tuple[str, Any]]:
    return [("sourceDir", job.take("sourceDir", _comma_list)), ("targetDir", job.take("targetDir")),
            *_distcp(job, "distcpMaxMaps", "distcpMapBandwidth"), ("overwrite", job.take("overwrite", _boolean)),
            *_file_options(job)]


def _snapshot_fields(job: _Job) -> list[tuple[str, Any]]:
    retention = [
        (f"{side}SnapshotRetention{part}", job.take(f"{side}SnapshotRetention{part}", convert))
        for side in ("source", "target")
        for part, convert in (("Policy", str), ("AgeLimit", str), ("Number", integer))
    ]
    return [("sourceSnapshotDir", job.take("sourceSnapshotDir")), ("targetSnapshotDir", job.take("targetSnapshotDir")),
            *retention, *_distcp(job, "maxMaps", "mapBandwidth"), *_file_options(job)]


def _hive_fields(job: _Job) -> list[tuple[str, Any]]:
    return [("sourceDatabases", job.take("sourceDatabases", _comma_list)),
            ("sourceTables", job.take("sourceTables", _tables)),
            ("sourceStagingPath", job.take("sourceStagingPath")), ("targetStagingPath", job.take("targetStagingPath")),
            ("maxEvents", job.take("maxEvents", integer)),
            ("replicationMaxMaps", job.take("replicationMaxMaps", integer)),
            *_distcp(job, "distcpMaxMaps", "distcpMapBandwidth")]


def _distcp(job: _Job, maps: str, bandwidth: str) -> list[tuple[str, Any]]:
    """The DistCp limits under the names the job's extension gives them (the snapshot extension's `maxMaps` and
    `mapBandwidth`, the others' `distcp...`): a key of another extension is left to be reported."""
    return [("distcpMaxMaps", job.take(maps, integer)), ("distcpMapBandwidth", job.take(bandwidth, integer))]


def _file_options(job: _Job) -> list[tuple[str, Any]]:
    return [(key, job.take(key, _boolean)) for key in _FILE_OPTIONS]


_TYPE_FIELDS: dict[str, Callable[[_Job], list[tuple[str, Any]]]] = {
    "hdfs": _hdfs_fields, "hdfs-snapshot": _snapshot_fields, "hive": _hive_fields}


def _comma_list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _tables(text: str) -> str | list[str]:
    return "*" if text == "*" else _comma_list(text)


def _boolean(text: str) -> bool | str:
    """`true` or `false` in any case as a bool; other text unchanged (the schema check reports it)."""
    return _BOOLEANS.get(text.lower(), text)


@dataclass(frozen=True)
class _KeyLines:
    """Where each key is first set, and the line of each key set again."""

    lines: dict[str, int]
    repeated: dict[str, int]


def _key_lines(text: str) -> _KeyLines:
    """The line of each key as far as a plain `key=`, `key:` or `key value` line tells: a continued line is part of
    the value before it, and a key spelled with escapes is not found (its reports name the file alone)."""
    lines: dict[str, int] = {}
    repeated: dict[str, int] = {}
    continued = False
    for number, line in enumerate(text.splitlines(), 1):
        starts_key = not continued
        stripped = line.lstrip(" \t\f")
        continued = not stripped.startswith(("#", "!")) and (len(line) - len(line.rstrip("\\"))) % 2 == 1
        match = _KEY.match(line) if starts_key else None
        if match is None:
            continue
        key = match.group(1)
        if key in lines:
            repeated.setdefault(key, number)
        lines.setdefault(key, number)
    return _KeyLines(lines, repeated)
