"""Column-level lineage of a `spark-sql` or `hive` workflow, as OpenLineage's ColumnLineageDatasetFacet, read by
the OpenLineage project's own SQL parser (`openlineage_sql`, imported when called: importing this module is cheap
and loads no Spark).

The workflow's `${name}` variables become marker identifiers the parser reads as table names (an input `hourly`
-> `ftk_in_0`, an output -> `ftk_out_0`, Falcon's `falcon_output_database`.`falcon_output_table` -> the first table
output's marker, any other property -> `ftk_var_N`); `INSERT OVERWRITE DIRECTORY '<output>' USING fmt ...`, which
the parser cannot read, becomes `INSERT OVERWRITE TABLE <output> ...`. The statements are parsed one by one and each
output column is traced through temporary views, scratch tables and earlier outputs (in statement order) to the
fields of the process's inputs; the parser resolves CTEs and subqueries inside a statement itself. A Hive table
made over an input's location (`CREATE EXTERNAL TABLE t (...) LOCATION '${hourly}'`) stands for that input.

What the parser does not say, or says wrongly, gives no lineage rather than a wrong one (checked on the statement's
text outside quoted strings, never by parsing it here):
- a statement the parser cannot read: no facet for the outputs it names; the views it names become unknown;
- `SELECT *` (or `t.*`): expanded only for `SELECT [DISTINCT] * FROM v [alias] [WHERE|ORDER BY|...]` over one view,
  scratch table or earlier output whose columns are known; any other star leaves its output without a facet;
- UNION/INTERSECT/EXCEPT/MINUS, LATERAL VIEW, PIVOT, a column list after the target (`INSERT INTO t (x, y)`,
  `CREATE VIEW v (x, y)`): the parser names or traces the columns wrongly, so that output gets no facet;
- a statement reading several relations (a join, a subquery on another table): the parser attributes an unqualified
  column to the first table, so only columns written qualified (`x.a`) everywhere in the statement are kept;
- a column the parser leaves unnamed (`b + c` without alias, named `_0` by the parser), one that depends on a
  property (`${x}` may be a column's name), on a table that is not an input, or on an unknown view: left out.
The parser reports no transformation kinds (DIRECT/INDIRECT) and no dataset-level lineage, so neither is given:
each input field's `transformations` is empty. A column computed from no input column (COUNT(*), a literal) has no
input field and is left out. Output column names are the select list's (Spark inserts into a table by position).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from toolkit.services.openlineage.naming import DatasetName
from toolkit.sql_text import VARIABLE, split_statements

_PREFIX = "ftk"
_DATASET_MARKER = re.compile(rf"\b{_PREFIX}_(in|out)_(\d+)\b", re.IGNORECASE)
_VAR_MARKER = re.compile(rf"\b{_PREFIX}_var_\d+\b", re.IGNORECASE)
_DATABASE_MARKER = f"{_PREFIX}_db"
_GENERATED_NAME = re.compile(r"^_\d+$")
_QUOTED = re.compile(r"`[^`]*`|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", re.DOTALL)
_DIRECTORY = re.compile(r"^\s*INSERT\s+OVERWRITE\s+(?:LOCAL\s+)?DIRECTORY\b", re.IGNORECASE)
_QUERY_START = re.compile(r"(?:\(\s*)*\b(?:SELECT|WITH|FROM|VALUES)\b", re.IGNORECASE)
_SELECT = re.compile(r"\bSELECT\b", re.IGNORECASE)
_STAR = re.compile(r"(?:\bSELECT\s+(?:ALL\s+|DISTINCT\s+)?|,\s*)(?:[\w`]+\s*\.\s*)*\*", re.IGNORECASE)
_SIMPLE_STAR = re.compile(
    r"\bSELECT\s+(?:ALL\s+|DISTINCT\s+)?\*\s+FROM\s+[\w.`]+"
    r"(?:\s+(?:AS\s+)?(?!(?:WHERE|ORDER|SORT|CLUSTER|DISTRIBUTE|LIMIT)\b)\w+)?"
    r"(?:\s+(?:WHERE|ORDER|SORT|CLUSTER|DISTRIBUTE|LIMIT)\b.*)?\s*\)?\s*$", re.IGNORECASE | re.DOTALL)
_UNTRUSTED = re.compile(r"\b(?:UNION|INTERSECT|EXCEPT|MINUS|LATERAL|PIVOT|UNPIVOT)\b", re.IGNORECASE)
_NAME = r"[\w.`]+"
_VIEW_COLUMN_LIST = re.compile(
    rf"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:GLOBAL\s+)?(?:TEMP\s+|TEMPORARY\s+)?VIEW\s+(?:IF\s+NOT\s+EXISTS\s+)?"
    rf"{_NAME}\s*\(", re.IGNORECASE)
_INSERT_COLUMN_LIST = re.compile(
    rf"^\s*INSERT\s+(?:INTO|OVERWRITE)\s+(?:TABLE\s+)?{_NAME}\s*(?:PARTITION\s*\([^)]*\)\s*)?"
    r"(?:IF\s+NOT\s+EXISTS\s*)?\(\s*(?!SELECT\b|WITH\b|\()", re.IGNORECASE)
_INSERT_INTO = re.compile(r"^\s*INSERT\s+INTO\b", re.IGNORECASE)
_LOCATION = re.compile(r"\bLOCATION\s*'", re.IGNORECASE)
_NO_MAPPING: Mapping[str, str] = MappingProxyType({})


# A column's sources: the (input name, field) pairs it is computed from, or None when they are not known.
_Sources = frozenset[tuple[str, str]] | None


@dataclass
class _Relation:
    """A view, a scratch table or an output as written so far: its columns' sources; `known` False when its
    columns cannot be told (an unreadable statement, a star that cannot be expanded)."""

    columns: dict[str, _Sources] = field(default_factory=dict)
    known: bool = True
    over_input: str | None = None  # a table over an input's location: its columns are the input's fields

    def column(self, name: str) -> _Sources:
        if not self.known:
            return None
        if self.over_input is not None:
            return frozenset({(self.over_input, name)})
        for column, sources in self.columns.items():
            if column.lower() == name.lower():
                return sources
        return frozenset()  # a column of a known relation computed from no input column (COUNT(*), a literal)


@dataclass(frozen=True)
class _Target:
    kind: str  # "input", "output" or "relation"
    key: str  # the input's or output's name, or the relation's lower-case qualified name


def column_lineage(source: str, inputs: Mapping[str, DatasetName], outputs: Mapping[str, DatasetName],
                   table_inputs: Mapping[str, str] = _NO_MAPPING, table_outputs: Mapping[str, str] = _NO_MAPPING,
                   dialect: str = "hive", *, producer: str) -> dict[str, dict[str, Any]]:
    """`source` is the workflow's SQL template (with ${...}); `inputs`/`outputs` map the process's input and output
    names to their datasets; `table_inputs`/`table_outputs` map a table input's/output's name to its `db.table`
    as the SQL may spell it after Falcon's names are substituted. Returns, per output name, the column lineage
    facet as a JSON object (the client's ColumnLineageDatasetFacet through openlineage.client.serde.Serde.to_dict,
    `_producer` given by `producer`), only for outputs where the parser found columns.
    Never raises for SQL the parser cannot read: that output gets no facet (an OpenLineage consumer sees no
    column lineage rather than a wrong one)."""
    reader = _Reader(inputs, outputs, table_inputs, table_outputs, dialect)
    for statement in split_statements(source):
        reader.read(_rewrite_directory(reader.substitute(statement)))
    facets: dict[str, dict[str, Any]] = {}
    for name, relation in reader.written.items():
        if name in reader.tainted or not relation.known:
            continue
        facet = _facet(relation, inputs, producer)
        if facet is not None:
            facets[name] = facet
    return facets


class _Reader:
    def __init__(self, inputs: Mapping[str, DatasetName], outputs: Mapping[str, DatasetName],
                 table_inputs: Mapping[str, str], table_outputs: Mapping[str, str], dialect: str) -> None:
        self.dialect = dialect
        self.input_names = list(inputs)
        self.output_names = list(outputs)
        self.values: dict[str, str] = {}
        self.properties = 0
        for number, name in enumerate(self.input_names):
            self.values[name] = f"{_PREFIX}_in_{number}"
        for number, name in enumerate(self.output_names):
            self.values.setdefault(name, f"{_PREFIX}_out_{number}")
        first_input = next((name for name in table_inputs if name in inputs), None)
        first_output = next((name for name in table_outputs if name in outputs), None)
        self.values.setdefault("falcon_input_database", _DATABASE_MARKER)
        self.values.setdefault("falcon_output_database", _DATABASE_MARKER)
        if first_input is not None:
            self.values.setdefault("falcon_input_table", self.values[first_input])
        if first_output is not None:
            self.values.setdefault("falcon_output_table", self.values[first_output])
        self.literal_tables: dict[str, _Target] = {}
        for name, table in table_outputs.items():
            if name in outputs:
                self.literal_tables[_unquote(table).lower()] = _Target("output", name)
        for name, table in table_inputs.items():
            if name in inputs:
                self.literal_tables[_unquote(table).lower()] = _Target("input", name)
        self.relations: dict[str, _Relation] = {}
        self.written: dict[str, _Relation] = {}
        self.tainted: set[str] = set()

    def substitute(self, statement: str) -> str:
        def value(match: re.Match[str]) -> str:
            key = match.group(1)
            if key not in self.values:
                self.values[key] = f"{_PREFIX}_var_{self.properties}"
                self.properties += 1
            return self.values[key]

        return VARIABLE.sub(value, statement)

    def target(self, qualified_name: str) -> _Target:
        """What a table name the parser read stands for: an input or output (by its marker, or by its `db.table`),
        else a relation of the workflow (a view, a scratch table) or a table that is no input."""
        markers = {(kind.lower(), int(number)) for kind, number in _DATASET_MARKER.findall(qualified_name)}
        if len(markers) == 1:
            kind, number = markers.pop()
            names = self.input_names if kind == "in" else self.output_names
            if number < len(names):
                return _Target("input" if kind == "in" else "output", names[number])
        literal = self.literal_tables.get(_unquote(qualified_name).lower())
        return literal if literal is not None else _Target("relation", _unquote(qualified_name).lower())

    def relation(self, target: _Target) -> _Relation | None:
        if target.kind == "output":
            unknown = target.key in self.tainted or target.key not in self.written
            return _Relation(known=False) if unknown else self.written[target.key]
        return self.relations.get(target.key) if target.kind == "relation" else None

    def named_outputs(self, text: str) -> set[str]:
        named = {self.target(f"{_PREFIX}_{kind}_{number}") for kind, number in _DATASET_MARKER.findall(text)}
        lowered = text.lower()
        named |= {target for table, target in self.literal_tables.items()
                  if re.search(rf"(?<![\w.]){re.escape(table)}(?![\w])", lowered.replace("`", ""))}
        return {target.key for target in named if target.kind == "output"}

    def unreadable(self, text: str, masked: str) -> None:
        self.tainted |= self.named_outputs(text)
        words = {word.lower() for word in re.findall(r"[\w.]+", masked.replace("`", ""))}
        for name, relation in self.relations.items():
            if name in words:
                relation.known = False

    def read(self, text: str) -> None:
        import openlineage_sql  # type: ignore[import-untyped]  # Rust, untyped; loaded only when asked for

        masked = _mask_quotes(text)
        try:
            meta = openlineage_sql.parse([text], dialect=self.dialect)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # noqa: B036 - the parser is Rust: a panic arrives as pyo3's BaseException
            meta = None
        if meta is None or meta.errors:
            self.unreadable(text, masked)
            return
        targets = [self.target(table.qualified_name) for table in meta.out_tables]
        sources = [self.target(table.qualified_name) for table in meta.in_tables]
        written = {target.key for target in targets if target.kind == "output"}
        read = {target.key for target in sources if target.kind == "output"}
        self.tainted |= self.named_outputs(text) - written - read
        if not targets:
            return
        if len(targets) != 1 or targets[0].kind == "input":
            self.tainted |= written
            for target in targets:
                if target.kind == "relation":
                    self.relations[target.key] = _Relation(known=False)
            return
        columns = self.columns(meta, masked, sources)
        target = targets[0]
        if target.kind == "output":
            if columns is None:
                self.tainted.add(target.key)
            else:
                self.write(self.written.setdefault(target.key, _Relation()), columns)
        elif not sources and not meta.column_lineage:
            self.relations[target.key] = self.defined_from_nothing(text)
        elif columns is None or not columns.columns:
            self.relations[target.key] = _Relation(known=False)  # e.g. `CREATE TABLE t LIKE u`: columns unknown
        elif _INSERT_INTO.match(masked) and target.key in self.relations:
            self.write(self.relations[target.key], columns)  # a scratch table filled by several statements
        else:
            self.relations[target.key] = columns

    def defined_from_nothing(self, text: str) -> _Relation:
        """A relation the parser sees made from no table: `CREATE EXTERNAL TABLE t (...) LOCATION '${input}'` is
        that input (its columns are the input's fields); anything else (`DROP VIEW v`, `CREATE TABLE t (a INT)`,
        a view of literals) has columns we cannot trace."""
        markers = {(kind.lower(), int(number)) for kind, number in _DATASET_MARKER.findall(text)}
        if _LOCATION.search(text) and len(markers) == 1:
            target = self.target(f"{_PREFIX}_{'_'.join(map(str, markers.pop()))}")
            if target.kind == "input":
                return _Relation(over_input=target.key)
        return _Relation(known=False)

    def columns(self, meta: Any, masked: str, sources: Sequence[_Target]) -> _Relation | None:
        """The columns one statement writes, or None when they cannot be told."""
        if _UNTRUSTED.search(masked) or _VIEW_COLUMN_LIST.search(masked) or _INSERT_COLUMN_LIST.search(masked):
            return None
        if _STAR.search(masked):
            return self.star(meta, masked, sources)
        several = len(sources) > 1
        columns: dict[str, _Sources] = {}
        for item in meta.column_lineage:
            name = item.descendant.name
            if _GENERATED_NAME.match(name):
                continue
            found: set[tuple[str, str]] = set()
            known = True
            for origin in item.lineage:
                resolved = self.resolve(origin.origin, origin.name)
                if resolved is None or (several and not _always_qualified(origin.name, masked)):
                    known = False
                    break
                found |= resolved
            columns[name] = frozenset(found) if known else None
        return _Relation(columns)

    def star(self, meta: Any, masked: str, sources: Sequence[_Target]) -> _Relation | None:
        if meta.column_lineage or len(sources) != 1 or len(_SELECT.findall(masked)) != 1:
            return None
        if not _SIMPLE_STAR.search(masked):
            return None
        relation = self.relation(sources[0])
        if relation is None or not relation.known or relation.over_input is not None or not relation.columns:
            return None
        return _Relation(dict(relation.columns))

    def resolve(self, origin: Any, column: str) -> _Sources:
        if origin is None or _VAR_MARKER.search(column):
            return None
        target = self.target(origin.qualified_name)
        if target.kind == "input":
            return frozenset({(target.key, column)})
        relation = self.relation(target)
        return None if relation is None else relation.column(column)

    @staticmethod
    def write(relation: _Relation, columns: _Relation) -> None:
        """Several statements may write one output or scratch table (INSERT INTO twice): the sources are merged."""
        for name, sources in columns.columns.items():
            existing = next((column for column in relation.columns if column.lower() == name.lower()), name)
            before = relation.columns.get(existing, frozenset())
            relation.columns[existing] = None if before is None or sources is None else before | sources


def _facet(relation: _Relation, inputs: Mapping[str, DatasetName], producer: str) -> dict[str, Any] | None:
    from openlineage.client.facet_v2 import column_lineage_dataset as facets
    from openlineage.client.serde import Serde

    fields: dict[str, facets.Fields] = {}
    for name in sorted(relation.columns):
        sources = relation.columns[name]
        if not sources:
            continue
        datasets = sorted((inputs[input_name].namespace, inputs[input_name].name, column)
                          for input_name, column in sources)
        fields[name] = facets.Fields(inputFields=[facets.InputField(namespace=namespace, name=dataset, field=column)
                                                  for namespace, dataset, column in datasets])
    if not fields:
        return None
    result: dict[str, Any] = Serde.to_dict(facets.ColumnLineageDatasetFacet(fields=fields, producer=producer))
    return result


def _rewrite_directory(statement: str) -> str:
    """`INSERT OVERWRITE [LOCAL] DIRECTORY '<output marker>' [USING fmt] [OPTIONS (...)] [ROW FORMAT ...] <query>`
    -> `INSERT OVERWRITE TABLE <output marker> <query>`: the parser reads no `USING`; any other statement as is."""
    masked = _mask_quotes(statement)
    head = _DIRECTORY.match(masked)
    if head is None:
        return statement
    query = _QUERY_START.search(masked, head.end())
    if query is None:
        return statement
    markers = set(re.findall(rf"\b{_PREFIX}_out_\d+\b", statement[:query.start()], re.IGNORECASE))
    if len(markers) != 1:
        return statement
    return f"INSERT OVERWRITE TABLE {markers.pop()} {statement[query.start():]}"


def _mask_quotes(text: str) -> str:
    """The text with the insides of '...' and "..." blanked (same length); `...` identifiers kept."""
    def blank(match: re.Match[str]) -> str:
        quoted = match.group(0)
        return quoted if quoted[0] == "`" else quoted[0] + " " * (len(quoted) - 2) + quoted[-1]

    return _QUOTED.sub(blank, text)


def _always_qualified(column: str, masked: str) -> bool:
    """Whether every mention of `column` in the statement is qualified (`t.column`) or an alias (`AS column`)."""
    text = masked.replace("`", "")
    for match in re.finditer(rf"(?<![\w.]){re.escape(column)}(?!\w)", text, re.IGNORECASE):
        before = text[:match.start()]
        if not re.search(r"\.\s*$", before) and not re.search(r"\bAS\s+$", before, re.IGNORECASE):
            return False
    return True


def _unquote(name: str) -> str:
    return name.replace("`", "")
