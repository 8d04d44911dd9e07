"""Entities of a config repo: YAML with positions, JSON Schemas, the typed model and the repo graph.

Imports no Spark: the linter and the CLI use it in a pre-commit hook. Modules, each with one job:
`yaml_loader` (YAML -> `Document` with line/column of every value), `schemas` and `validation`
(JSON Schema -> `Problem`s), `model` and `build` (the frozen typed entities), `loading` (one file),
`repo` (`ConfigRepo`: all entities, lookups, dependency graph), `problems` (the shared record and codes).
"""

from toolkit.core.entities.document import Document, SourceSpan, format_path
from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.core.entities.loading import load_entity, parse_entity
from toolkit.core.entities.model import Cluster, Datasource, Entity, Feed, Process
from toolkit.core.entities.problems import CODES, Problem, Severity
from toolkit.core.entities.repo import ConfigRepo, find_repo_root, is_config_repo

__all__ = [
    "CODES",
    "Cluster",
    "ConfigRepo",
    "Datasource",
    "Document",
    "Entity",
    "EntityRef",
    "Feed",
    "Kind",
    "Problem",
    "Process",
    "Severity",
    "SourceSpan",
    "find_repo_root",
    "format_path",
    "is_config_repo",
    "load_entity",
    "parse_entity",
]
