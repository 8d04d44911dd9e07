"""The Prometheus text format (0.0.4) of metric families, exactly as prometheus-client's `generate_latest` writes
it, in a third of its time for the families the toolkit makes.

Why not the library's writer alone: `toolkit metrics` of a cluster of a thousand processes and two thousand feeds
writes some 33,000 samples, and `generate_latest` spends about 6 µs on each (it sorts, checks and escapes every
label of every sample, and every name); here a family whose names are plain (Prometheus' legacy character set,
checked once a name) and whose type is a gauge or a histogram is written with the label values escaped as the
library escapes them, about 2 µs a sample. Any other family (another type, a timestamp, a name to quote) is written
by `generate_latest` itself. The library stays the model (its `Metric` and `Sample` records) and the server of
`--listen`; tests/unit/cli/test_metrics_text.py holds this writer's text to the library's, hostile values included.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from prometheus_client import generate_latest
from prometheus_client.core import Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

_PLAIN_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")  # a metric name the library writes as it is
_PLAIN_LABEL = re.compile(r"(?!__)[a-zA-Z_][a-zA-Z0-9_]*")  # a label name the library writes as it is
_WRITTEN_HERE = frozenset({"gauge", "histogram"})  # types the library writes under their own name, samples in order
_FAMILY = re.compile(r"^(?=# HELP )", re.MULTILINE)


class FamilyText(NamedTuple):
    """One family's text: its HELP and TYPE lines, and its sample lines."""

    head: str
    samples: str


def family_texts(families: Iterable[Metric]) -> list[FamilyText]:
    """The text of each family, in order: `generate_latest` of them all is the heads and samples joined, for families
    of distinct names (the toolkit's are: `joined` merges two of one name, where the library writes both)."""
    texts: list[FamilyText] = []
    plain_labels: set[str] = set()
    for family in families:
        written = _written_here(family, plain_labels)
        texts.extend([written] if written is not None else _by_the_library(family))
    return texts


def joined(parts: Sequence[Sequence[FamilyText]]) -> str:
    """The texts of the parts of one collection as the text of the whole: each family's HELP and TYPE lines once,
    then its samples from each part in order. The first part has every family, the others some of them."""
    samples: dict[str, list[str]] = {}
    for number, part in enumerate(parts):
        for head, lines in part:
            if number and head not in samples:
                raise ValueError(f"part {number} of the text has a family the first part has not: {head!r}")
            samples.setdefault(head, []).append(lines)
    return "".join(head + "".join(lines) for head, lines in samples.items())


def _written_here(family: Metric, plain_labels: set[str]) -> FamilyText | None:
    """The family's text, or None when it is one this writer leaves to the library."""
    if family.type not in _WRITTEN_HERE or _PLAIN_NAME.fullmatch(family.name) is None:
        return None
    suffixes = (f"{family.name}_created", f"{family.name}_gsum", f"{family.name}_gcount")  # moved by the library
    plain_names = {family.name}
    lines: list[str] = []
    for sample in family.samples:
        if sample.timestamp is not None or sample.name in suffixes:
            return None
        if sample.name not in plain_names:
            if _PLAIN_NAME.fullmatch(sample.name) is None:
                return None
            plain_names.add(sample.name)
        labels = sample.labels
        if not labels:
            lines.append(f"{sample.name} {floatToGoString(sample.value)}\n")
            continue
        keys = sorted(labels)
        for key in keys:
            if key not in plain_labels:
                if _PLAIN_LABEL.fullmatch(key) is None:
                    return None
                plain_labels.add(key)
        pairs = ",".join([f'{key}="{_escaped(labels[key])}"' for key in keys])
        lines.append(f"{sample.name}{{{pairs}}} {floatToGoString(sample.value)}\n")
    documentation = family.documentation.replace("\\", r"\\").replace("\n", r"\n")
    return FamilyText(f"# HELP {family.name} {documentation}\n# TYPE {family.name} {family.type}\n", "".join(lines))


def _escaped(value: str) -> str:
    """A label value as the library escapes it: backslash, line feed and double quote."""
    if "\\" in value or "\n" in value or '"' in value:
        return value.replace("\\", r"\\").replace("\n", r"\n").replace('"', r"\"")
    return value


class _One(Collector):
    def __init__(self, family: Metric) -> None:
        self.family = family

    def collect(self) -> Iterator[Metric]:
        yield self.family


def _by_the_library(family: Metric) -> list[FamilyText]:
    """`generate_latest` of the one family, cut into the families it wrote (a counter's `_created` is one more)."""
    written = generate_latest(_One(family)).decode()
    texts = []
    for text in _FAMILY.split(written):
        if text:
            head = text.index("\n", text.index("\n") + 1) + 1  # the HELP and TYPE lines
            texts.append(FamilyText(text[:head], text[head:]))
    return texts
