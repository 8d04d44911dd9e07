"""`_metadata.json`: what an export directory holds, written last so that a directory with it is complete.

Layout of an export directory:

    DIR/_metadata.json   this record (format, table description, partition values, file list)
    DIR/data/...         the partition's data files, copied byte for byte, at their paths below the partition

The record says everything the import needs without the source metastore: the table's columns and partition
keys with their Hive types, its storage format (input/output format, serde and its parameters, Spark's data
source), its properties (the volatile ones left out), its type, the partition's values, and each file's path
(relative, `/`-separated), size and CRC32C (8 hex digits). Reading refuses anything else, naming the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Any

from toolkit.core.el.timestamps import format_timestamp, parse_timestamp
from toolkit.core.storage.catalog_records import Column, StorageFormat, TableDescription, TableType
from toolkit.core.storage.filesystem import StorageError
from toolkit.errors import ToolkitError

FORMAT = "feed-toolkit/hive-export"
FORMAT_VERSION = 1
METADATA_NAME = "_metadata.json"
DATA_DIR = "data"
_EXPORT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # it names a directory on the target


@dataclass(frozen=True)
class ExportedFile:
    """One data file: its path below the partition (and below DIR/data), size in bytes, CRC32C in hex."""

    path: str
    size: int
    crc32c: str


@dataclass(frozen=True)
class ExportMetadata:
    """The content of `_metadata.json`."""

    export_id: str
    table: TableDescription
    partition: Mapping[str, str]
    files: tuple[ExportedFile, ...]
    source_location: str | None = None
    feed: str | None = None
    cluster: str | None = None
    instance_time: datetime | None = None
    format_version: int = FORMAT_VERSION

    def __post_init__(self) -> None:
        object.__setattr__(self, "partition", MappingProxyType(dict(self.partition)))
        object.__setattr__(self, "files", tuple(self.files))

    @property
    def total_bytes(self) -> int:
        return sum(item.size for item in self.files)

    def to_json(self) -> bytes:
        table = self.table
        document = {
            "format": FORMAT,
            "format_version": self.format_version,
            "export_id": self.export_id,
            "feed": self.feed,
            "cluster": self.cluster,
            "instance_time": format_timestamp(self.instance_time) if self.instance_time else None,
            "table": {
                "database": table.database,
                "name": table.name,
                "type": table.table_type.value,
                "location": table.location,
                "comment": table.comment,
                "columns": [_column_json(column) for column in table.columns],
                "partition_keys": [_column_json(column) for column in table.partition_columns],
                "storage": {
                    "input_format": table.storage.input_format,
                    "output_format": table.storage.output_format,
                    "serde": table.storage.serde,
                    "serde_parameters": dict(sorted(table.storage.serde_parameters.items())),
                    "provider": table.storage.provider,
                },
                "properties": dict(sorted(table.properties.items())),
            },
            "partition": {"values": dict(self.partition), "location": self.source_location},
            "files": [{"path": item.path, "size": item.size, "crc32c": item.crc32c} for item in self.files],
            "totals": {"files": len(self.files), "bytes": self.total_bytes},
        }
        return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")

    @classmethod
    def from_json(cls, data: bytes, where: str) -> ExportMetadata:
        """The record in `data` (read from `where`, named in errors); StorageError when it is not one."""
        try:
            document = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise StorageError(f"{where} is not JSON ({error}): the export is damaged; export the partition "
                               "again.") from None
        try:
            return _parse(document, where)
        except StorageError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise StorageError(f"{where} is not a complete export record ({type(error).__name__}: {error}): the "
                               "export is damaged; export the partition again.") from None
        except ToolkitError as error:  # an unreadable time: the file is damaged, not the call
            raise StorageError(f"{where} is damaged ({error}): export the partition again.") from None


def _column_json(column: Column) -> dict[str, str | None]:
    return {"name": column.name, "type": column.type, "comment": column.comment}


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{what} must be a non-empty string")
    return value


def _optional_text(value: Any, what: str) -> str | None:
    return None if value is None else _text(value, what)


def _strings(value: Any, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError(f"{what} must map strings to strings")
    return dict(value)


def _columns(value: Any, what: str) -> tuple[Column, ...]:
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list")
    return tuple(Column(_text(item["name"], f"{what} name"), _text(item["type"], f"{what} type"),
                        _optional_text(item.get("comment"), f"{what} comment")) for item in value)


def check_relative_path(path: Any) -> str:
    """A file's path below the partition: relative, `/`-separated, no empty, `.` or `..` part (an export must
    not name a place outside its directory)."""
    if not isinstance(path, str) or not path or path.startswith("/") or "\\" in path:
        raise ValueError(f"the file path {path!r} is not a relative path")
    if any(part in ("", ".", "..") for part in path.split("/")):
        raise ValueError(f"the file path {path!r} leaves its directory or has an empty part")
    return path


def _parse(document: Any, where: str) -> ExportMetadata:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise StorageError(f"{where} is not a Hive export of the toolkit (its format is not {FORMAT!r}): give the "
                           "directory that hive_export.py wrote.")
    version = document.get("format_version")
    if not isinstance(version, int) or version < 1:
        raise ValueError("format_version must be a positive integer")
    if version > FORMAT_VERSION:
        raise StorageError(f"{where} has format version {version}, newer than this toolkit reads "
                           f"({FORMAT_VERSION}): import it with the toolkit that exported it, or a newer one.")
    table = document["table"]
    storage = table["storage"]
    description = TableDescription(
        database=_text(table["database"], "table.database"),
        name=_text(table["name"], "table.name"),
        table_type=TableType(table["type"]),
        location=_optional_text(table.get("location"), "table.location"),
        columns=_columns(table["columns"], "table.columns"),
        partition_columns=_columns(table["partition_keys"], "table.partition_keys"),
        storage=StorageFormat(
            input_format=_optional_text(storage.get("input_format"), "storage.input_format"),
            output_format=_optional_text(storage.get("output_format"), "storage.output_format"),
            serde=_optional_text(storage.get("serde"), "storage.serde"),
            serde_parameters=_strings(storage.get("serde_parameters", {}), "storage.serde_parameters"),
            provider=_optional_text(storage.get("provider"), "storage.provider"),
        ),
        properties=_strings(table.get("properties", {}), "table.properties"),
        comment=_optional_text(table.get("comment"), "table.comment"),
    )
    if not description.partition_columns:
        raise ValueError("table.partition_keys is empty: an export holds one partition of a partitioned table")
    partition = document["partition"]
    values = _strings(partition["values"], "partition.values")
    if [key.lower() for key in values] != [key.lower() for key in description.partition_keys]:
        raise ValueError(f"partition.values names {list(values)}, not the partition keys "
                         f"{list(description.partition_keys)}")
    files = []
    for item in document["files"]:
        size, crc = item["size"], item["crc32c"]
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ValueError(f"the size of {item.get('path')!r} is not a byte count")
        if not isinstance(crc, str) or len(crc) != 8 or any(char not in "0123456789abcdef" for char in crc):
            raise ValueError(f"the crc32c of {item.get('path')!r} is not 8 lower-case hex digits")
        files.append(ExportedFile(check_relative_path(item["path"]), size, crc))
    if len({item.path for item in files}) != len(files):
        raise ValueError("a file is listed twice")
    instance_time = document.get("instance_time")
    export_id = _text(document["export_id"], "export_id")
    if not _EXPORT_ID.match(export_id):
        raise ValueError(f"export_id {export_id!r} is not letters, digits, '_' and '-'")
    return ExportMetadata(
        export_id=export_id,
        table=description,
        partition=values,
        files=tuple(files),
        source_location=_optional_text(partition.get("location"), "partition.location"),
        feed=_optional_text(document.get("feed"), "feed"),
        cluster=_optional_text(document.get("cluster"), "cluster"),
        instance_time=parse_timestamp(instance_time, f"instance_time in {where}") if instance_time else None,
        format_version=version,
    )
