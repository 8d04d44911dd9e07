"""The one-shot text of `toolkit metrics` is prometheus-client's `generate_latest`, byte for byte: the families the
writer takes on (gauges and histograms with plain names) with any label value, value and help text, and every other
family handed to the library."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample

from toolkit.cli import metrics_text
from toolkit.cli.metrics_text import family_texts, joined


class Listed(Collector):
    def __init__(self, families: list[Metric]) -> None:
        self.families = families

    def collect(self) -> Iterator[Metric]:
        yield from self.families


def written(families: list[Metric]) -> str:
    return joined([family_texts(families)])


def library(families: list[Metric]) -> str:
    return generate_latest(Listed(families)).decode()


PLAIN_LABELS = ("cluster", "feed", "process", "state", "le", "tag_team", "_x", "a1")
label_values = st.text(alphabet=st.sampled_from(list('ab\\"\n\t#{},= é☃\x00\x7f')), max_size=12)
sample_values = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**20, 10**20))
help_texts = st.text(alphabet=st.sampled_from(list("ab \\\n\"#é")), max_size=20)


@st.composite
def families(draw: st.DrawFn) -> list[Metric]:
    made: list[Metric] = []
    for number in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(("gauge", "histogram")))
        name = f"feed_toolkit_family_{number}"
        family: Metric = (GaugeMetricFamily(name, draw(help_texts)) if kind == "gauge"
                          else HistogramMetricFamily(name, draw(help_texts)))
        suffixes = ("",) if kind == "gauge" else ("_bucket", "_count", "_sum")
        for _ in range(draw(st.integers(0, 6))):
            keys = draw(st.lists(st.sampled_from(PLAIN_LABELS), unique=True, max_size=4))
            labels = {key: draw(label_values) for key in keys}
            family.samples.append(Sample(name + draw(st.sampled_from(suffixes)), labels, draw(sample_values)))
        made.append(family)
    return made


@settings(max_examples=300, deadline=None)
@given(families())
def test_the_text_of_gauges_and_histograms_is_the_librarys(made: list[Metric]) -> None:
    assert written(made) == library(made)


def test_plain_families_are_written_here_and_the_rest_by_the_library(monkeypatch: pytest.MonkeyPatch) -> None:
    by_library: list[str] = []
    real = metrics_text.generate_latest

    def counted(collector: Collector) -> bytes:
        by_library.extend(family.name for family in collector.collect())
        return real(collector)

    monkeypatch.setattr(metrics_text, "generate_latest", counted)
    gauge = GaugeMetricFamily("feed_toolkit_plain", "Plain.\nTwo lines, a \\ too.")
    gauge.samples.append(Sample("feed_toolkit_plain", {"state": 'say "hi"\n', "cluster": "c\\1"}, math.inf))
    gauge.samples.append(Sample("feed_toolkit_plain", {}, 1e22))
    counter = CounterMetricFamily("feed_toolkit_runs", "A counter: _total and _created.")
    counter.add_metric(["a"], 3.0, created=1700000000.0)
    stamped = GaugeMetricFamily("feed_toolkit_stamped", "A sample with a timestamp.")
    stamped.samples.append(Sample("feed_toolkit_stamped", {"cluster": "c"}, 2.0, timestamp=1700000000.5))
    reserved = GaugeMetricFamily("feed_toolkit_reserved", "A label name the library escapes.")
    reserved.samples.append(Sample("feed_toolkit_reserved", {"__name": "x", "bad-name": "y"}, 1.0))
    created = HistogramMetricFamily("feed_toolkit_hist", "A histogram with its _created sample.")
    created.samples.append(Sample("feed_toolkit_hist_created", {"cluster": "c"}, 1700000000.0))
    made: list[Metric] = [gauge, counter, stamped, reserved, created]
    assert written(made) == library(made)
    assert by_library == ["feed_toolkit_runs", "feed_toolkit_stamped", "feed_toolkit_reserved", "feed_toolkit_hist"]
    assert 'feed_toolkit_plain{cluster="c\\\\1",state="say \\"hi\\"\\n"} +Inf\n' in written(made)
