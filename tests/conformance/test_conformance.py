"""Run the conformance corpus: every sample, every way of feeding it, against its expected parse."""

from __future__ import annotations

import importlib
import pkgutil
from collections import Counter

import pytest

from tests.parsing.helpers import parsed
from toklane.parsing.api import format_catalog, reasoning_format, tool_format

from . import suites as _suites_pkg
from .corpus import Sample, Suite

MIN_SAMPLES = 10


def _load() -> list[Suite]:
    out: list[Suite] = []
    for m in sorted(pkgutil.iter_modules(_suites_pkg.__path__), key=lambda m: m.name):
        out.extend(importlib.import_module(f"{_suites_pkg.__name__}.{m.name}").SUITES)
    return out


SUITES = _load()
SAMPLES = [(suite, sample) for suite in SUITES for sample in suite.samples]


@pytest.mark.parametrize(("suite", "sample"), SAMPLES, ids=[f"{s.id}: {x.name}" for s, x in SAMPLES])
def test_sample(suite: Suite, sample: Sample) -> None:
    reasoning, content, calls = parsed(suite.tokenizer, sample.output, **suite.fmt(sample))
    assert (reasoning, content) == (sample.reasoning, sample.content)
    assert calls == [tuple(c) for c in sample.calls]


def test_sample_names_are_unique() -> None:
    ids = Counter(f"{s.id}: {x.name}" for s, x in SAMPLES)
    assert [k for k, n in ids.items() if n > 1] == []


@pytest.mark.parametrize("kind", ["tools", "reasoning"])
def test_every_format_has_a_corpus(kind: str) -> None:
    canonical = tool_format if kind == "tools" else reasoning_format
    counts: Counter[str] = Counter()
    for suite in SUITES:
        name = getattr(suite, kind)
        if name is not None:
            counts[canonical(name).name] += len(suite.samples)
    names = [f["name"] for f in format_catalog()[kind]]
    missing = {name: counts[name] for name in names if counts[name] < MIN_SAMPLES}
    assert missing == {}, f"{kind} formats with fewer than {MIN_SAMPLES} conformance samples"
