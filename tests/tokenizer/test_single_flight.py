"""Single flight under staggered arrivals: one spec -> one wrapper, for objects, names and paths.

Threads released by a barrier start after random small delays, so some arrive
while the first load runs, some just as it finishes (the window in which a
caller that missed the cache used to start a second load) and some after.
Every caller, and every later call, must get the very same wrapper.
"""

from __future__ import annotations

import random
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import pytest

import toklane
from toklane.tokenizer import registry

THREADS = 16
ROUNDS = 3


def _staggered(load: Callable[[int], Any], spread_s: float, seed: int) -> list[Any]:
    """``load(k)`` on THREADS threads released together, each after a random delay."""
    rng = random.Random(seed)
    delays = [rng.uniform(0.0, spread_s) for _ in range(THREADS)]
    barrier = threading.Barrier(THREADS)
    results: list[Any] = [None] * THREADS
    errors: list[BaseException] = []

    def worker(k: int) -> None:
        try:
            barrier.wait()
            time.sleep(delays[k])
            results[k] = load(k)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def _timed(load: Callable[[], Any]) -> float:
    start = time.perf_counter()
    load()
    return time.perf_counter() - start


def _assert_one_wrapper(results: list[Any], again: Any) -> None:
    distinct = {id(r) for r in results}
    assert len(distinct) == 1, f"{len(distinct)} different wrappers for one spec"
    assert again is results[0], "a later call did not return the wrapper the callers got"


def test_tokenizers_object(deepseek_json):
    from tokenizers import Tokenizer as HF

    spread = 2 * _timed(lambda: toklane.load_tokenizer(HF.from_file(str(deepseek_json))))
    for seed in range(ROUNDS):
        obj = HF.from_file(str(deepseek_json))
        results = _staggered(lambda k, obj=obj: toklane.load_tokenizer(obj), spread, seed)
        _assert_one_wrapper(results, toklane.load_tokenizer(obj))


def test_transformers_object(deepseek_json):
    transformers = pytest.importorskip("transformers")
    from tokenizers import Tokenizer as HF

    def make() -> Any:
        return transformers.PreTrainedTokenizerFast(tokenizer_object=HF.from_file(str(deepseek_json)))

    spread = 2 * _timed(lambda: toklane.load_tokenizer(make()))
    obj = make()
    results = _staggered(lambda k: toklane.load_tokenizer(obj), spread, 100)
    _assert_one_wrapper(results, toklane.load_tokenizer(obj))


def test_tiktoken_encoding_object(qwen_package):
    import tiktoken

    from tests.references import tiktoken_ranks

    ranks = tiktoken_ranks(qwen_package / "resources" / "qwen.tiktoken")

    def make() -> Any:
        return tiktoken.Encoding("qwen-ranks", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})

    spread = 2 * _timed(lambda: toklane.load_tokenizer(make()))
    for seed in range(2):
        enc = make()
        results = _staggered(lambda k, enc=enc: toklane.load_tokenizer(enc), spread, 200 + seed)
        _assert_one_wrapper(results, toklane.load_tokenizer(enc))
        assert results[0].encode("hello world") == enc.encode_ordinary("hello world")


def test_names_and_aliases(monkeypatch):
    spellings = ("cl100k_base", "gpt-4", "gpt-3.5-turbo", "CL100K_BASE", "openai/gpt-4-turbo")
    monkeypatch.setattr(registry, "_named", {})
    spread = 2 * _timed(lambda: toklane.load_tokenizer("cl100k_base"))
    for seed in range(ROUNDS):
        monkeypatch.setattr(registry, "_named", {})  # cold again: each round races a fresh load
        results = _staggered(lambda k: toklane.load_tokenizer(spellings[k % len(spellings)]), spread, 300 + seed)
        _assert_one_wrapper(results, toklane.load_tokenizer("gpt-4"))


def test_paths(tmp_path, deepseek_json, monkeypatch):
    folder = tmp_path / "model"
    folder.mkdir()
    path = folder / "tokenizer.json"
    shutil.copy(deepseek_json, path)
    spellings = (str(path), path, str(folder), str(folder / "." / "tokenizer.json"), f"{folder}/")
    monkeypatch.setattr(registry, "_paths", OrderedDict())
    spread = 2 * _timed(lambda: toklane.load_tokenizer(path))
    for seed in range(ROUNDS):
        monkeypatch.setattr(registry, "_paths", OrderedDict())
        results = _staggered(lambda k: toklane.load_tokenizer(spellings[k % len(spellings)]), spread, 400 + seed)
        _assert_one_wrapper(results, toklane.load_tokenizer(str(path)))


def test_failed_load_reaches_every_waiter_and_is_not_cached(tmp_path):
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "BPE", "vocab": {"a": -1}}}')
    results = _staggered(lambda k: _error_of(lambda: toklane.load_tokenizer(str(bad))), 0.05, 500)
    assert all(isinstance(r, toklane.TokenizerLoadError) for r in results), results
    assert all("model.vocab" in str(r) for r in results)


def _error_of(call: Callable[[], Any]) -> BaseException | None:
    try:
        call()
    except BaseException as exc:
        return exc
    return None
