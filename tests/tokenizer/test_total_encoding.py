"""Encoding is total: any text, any size, every bundled tokenizer (issue 11, defect 1).

tiktoken's regex panics (``PanicException``, not an ``Exception``) on a run of
999,999 horizontal-whitespace characters, HF ``tokenizers`` from about 9.5
million; :mod:`toklane.tokenizer.pieces` cuts such runs. The ids must stay those
of each tokenizer's reference wherever the reference can encode the input.
"""

from __future__ import annotations

import base64
import json
import random

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from tests.references import TiktokenReference
from tests.tokenizer.test_exactness import UPGRADED, ref_encode, reference, tokenizer
from toklane.tokenizer.pieces import (
    HORIZONTAL,
    PARALLEL_MIN,
    RUN_PIECE,
    WHITESPACE,
    encode_in_windows,
    long_run_threshold,
    split_long_runs,
)
from toklane.tokenizer.registry import bundled_names

LONG = long_run_threshold()
TIKTOKEN_LIMIT = 999_998  # the longest whitespace run tiktoken's regex takes

# Each class of character a client can send a megabyte of.
CLASSES = {
    "space": " ",
    "tab": "\t",
    "newline": "\n",
    "crlf": "\r\n",
    "ideographic-space": "\u3000",
    "nbsp": "\u00a0",
    "mixed-whitespace": " \t\u3000\u00a0\r\n\x0b\u2028",
    "letter": "a",
    "digit": "0",
    "emoji": "\U0001f600",
    "cjk-punct": "\u3002",
    "dash": "-",
}


def _run(unit: str, n_bytes: int) -> str:
    """``unit`` repeated to about ``n_bytes`` of UTF-8."""
    return unit * max(1, n_bytes // len(unit.encode()))


_tekken_ref: list[TiktokenReference] = []


def _reference(name: str, qwen_package, deepseek_json):
    if name != "mistral-tekken":
        return reference(name, qwen_package, deepseek_json)
    if not _tekken_ref:
        from toklane.tokenizer.bundled import package_dir

        data = json.loads((package_dir("mistral_common", "mistral-common") / "data" / "tekken_240718.json").read_text())
        config = data["config"]
        n_special = config["default_num_special_tokens"]
        entries = data["vocab"][: config["default_vocab_size"] - n_special]
        ranks = {base64.b64decode(e["token_bytes"]): e["rank"] + n_special for e in entries}
        _tekken_ref.append(TiktokenReference("tekken", config["pattern"], ranks, {}, False))
    return _tekken_ref[0]


def test_whitespace_is_what_the_rust_regex_engines_call_whitespace():
    import tiktoken

    enc = tiktoken.Encoding("ws", pat_str=r"\s", mergeable_ranks={bytes([b]): b for b in range(256)}, special_tokens={})
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    assert enc.decode(enc.encode_ordinary(every)) == WHITESPACE
    assert set(HORIZONTAL) == set(WHITESPACE) - {"\r", "\n"}


@pytest.mark.parametrize("name", ["qwen3.6", "mistral-tekken"])
def test_a_million_spaces_regression(name):
    # Raised pyo3_runtime.PanicException (a stack overflow in tiktoken's regex).
    tok = toklane.load_tokenizer(name)
    assert tok.count(" " * 1_000_000) == len(tok.encode(" " * 1_000_000)) > 0


def test_split_long_runs_cuts():
    piece = 4
    assert split_long_runs("ab" + " " * 7, piece) is None  # shorter than 2 * piece
    assert split_long_runs("ab" + " " * 20 + "\ncd", piece) is None  # one \s*[\r\n]+ pre-token
    # Cut at the run's start and every piece after it; the last piece is 4..7 long.
    assert split_long_runs("ab" + " " * 11 + "cd", piece) == ["ab", "    ", " " * 7 + "cd"]
    assert split_long_runs(" " * 16, piece) == ["    "] * 3 + ["    "]
    # Not cut at the start of a run that ends the text right after a newline.
    assert split_long_runs("a\n" + "\t" * 9, piece) == ["a\n\t\t\t\t", "\t" * 5]
    for text in ["x" + " " * 37 + "\u3000" * 5 + "y", "\n" * 3 + " " * 40, "a\u2028" * 30 + " " * 9]:
        parts = split_long_runs(text, piece)
        assert parts is not None and "".join(parts) == text


# Characters that matter to the pre-tokenisers around a whitespace run.
_ALPHABET = list(WHITESPACE) + list("aZé\u0301'./-_1\u4e2d\u3002\u30fc\U0001f600\x1c<>s") + ["\r\n"]
_texts = st.lists(st.sampled_from(_ALPHABET), max_size=12).map("".join)
_runs = st.lists(st.sampled_from(HORIZONTAL), min_size=1, max_size=12).map("".join)
SPLIT_ENGINES = ["qwen3.6", "mistral-tekken", "deepseek-v4"]


@pytest.mark.parametrize("name", [*SPLIT_ENGINES, "cl100k_base", "o200k_base", "llama3", "qwen3"])
@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=_texts, run=_runs, after=_texts)
def test_every_pre_tokeniser_splits_where_a_run_is_cut(name, qwen_package, deepseek_json, before, run, after):
    """The cut at a run's start: what precedes it encodes the same alone, in the
    reference implementation (every whitespace kind, CRLF mixes, letters, digits,
    punctuation, CJK and marks on either side)."""
    if before[-1:] in HORIZONTAL or after[:1] in HORIZONTAL:
        return  # not a whole run: its start is elsewhere
    ref = _reference(name, qwen_package, deepseek_json)
    text = before + run + after
    start = len(before)
    parts = split_long_runs(text, piece=max(1, len(run) // 2))
    if parts is None or len(parts[0]) != start:
        return  # split_long_runs does not cut at this run's start here
    assert ref_encode(ref, text[:start]) + ref_encode(ref, text[start:]) == ref_encode(ref, text)


@st.composite
def _long_runs(draw) -> str:
    """A run long enough to be cut: one character repeated, a short pattern
    repeated, or a random mix of 2-4 whitespace kinds."""
    # Up to the longest run the reference takes, counting what before/after add.
    length = draw(
        st.one_of(st.integers(LONG, LONG + 3 * RUN_PIECE), st.integers(TIKTOKEN_LIMIT - 999, TIKTOKEN_LIMIT - 24))
    )
    kind = draw(st.sampled_from(["uniform", "periodic", "random"]))
    if kind == "uniform":
        return draw(st.sampled_from(HORIZONTAL)) * length
    if kind == "periodic":
        unit = draw(st.text(alphabet=HORIZONTAL, min_size=2, max_size=7))
        return (unit * (length // len(unit) + 1))[:length]
    kinds = draw(st.lists(st.sampled_from(HORIZONTAL), min_size=2, max_size=4, unique=True))
    rng = random.Random(draw(st.integers(0, 2**32)))
    return "".join(rng.choices(kinds, k=length))


@pytest.mark.parametrize("name", SPLIT_ENGINES)
@settings(max_examples=examples(5), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=_texts, run=_long_runs(), after=_texts)
def test_cut_runs_keep_the_reference_ids(name, qwen_package, deepseek_json, before, run, after):
    """Runs long enough to be cut, up to the longest the reference takes: same ids."""
    ref = _reference(name, qwen_package, deepseek_json)
    tok = toklane.load_tokenizer(name)
    text = before + run + after
    try:
        expected = ref_encode(ref, text)
    except BaseException as exc:  # the reference's own limit (a Rust panic or a ValueError)
        if not isinstance(exc, ValueError) and type(exc).__module__ != "pyo3_runtime":
            raise
        reject()
    assert tok.encode(text) == expected


def _small_runs(long: int, max_size: int):
    """Uniform, periodic and random horizontal-whitespace runs, drawn cheaply:
    mostly at least ``long`` characters, sometimes a few."""
    sizes = st.one_of(st.integers(long, max_size), st.integers(1, 40))
    uniform = st.builds(lambda c, n: c * n, st.sampled_from(HORIZONTAL), sizes)
    periodic = st.builds(lambda unit, n: (unit * n)[:n], st.text(alphabet=HORIZONTAL, min_size=2, max_size=7), sizes)
    mixed = st.builds(
        lambda kinds, seed, n: "".join(random.Random(seed).choices(kinds, k=n)),
        st.lists(st.sampled_from(HORIZONTAL), min_size=2, max_size=4, unique=True),
        st.integers(0, 2**32),
        sizes,
    )
    return st.one_of(uniform, periodic, mixed)


@pytest.mark.parametrize("name", SPLIT_ENGINES)
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=_texts, run=_small_runs(2048, 9000), after=_texts)
def test_windows_with_small_pieces_keep_the_reference_ids(name, qwen_package, deepseek_json, before, run, after):
    """The windowing itself, at a scale hypothesis can explore: pieces of 1,024
    characters read 512 past each cut (the real ones: 262,144 and 2,048)."""
    ref = _reference(name, qwen_package, deepseek_json)
    backend = toklane.load_tokenizer(name)._backend
    text = before + run + after
    if not hasattr(backend, "_engine"):  # HF tokenizers
        hf = backend._tok
        encode, token_bytes, prepared = (
            (lambda t: hf.encode(t, add_special_tokens=False).ids),
            backend._token_bytes,
            text,
        )
    else:
        engine = backend._engine
        if hasattr(engine, "_reference"):  # the compiled encoder; its tiktoken engine takes what it declines
            engine = engine._reference
        if hasattr(engine, "_exact_engine"):  # quicktok; its tiktoken engine takes the words it checks
            prepared = engine._normal(text)  # NFC for Qwen
            engine = engine._exact_engine()
        else:
            prepared = engine._prepare(text)
        encode, token_bytes = engine._enc.encode_ordinary, engine._enc.decode_single_token_bytes
    ids = encode_in_windows(prepared, encode, token_bytes, piece=1024, overlap=512)
    assert (ids if ids is not None else encode(prepared)) == ref_encode(ref, text)


@pytest.mark.parametrize("name", SPLIT_ENGINES)
def test_longest_reference_runs_keep_ids(name, qwen_package, deepseek_json):
    ref = _reference(name, qwen_package, deepseek_json)
    tok = toklane.load_tokenizer(name)
    for text in [" " * TIKTOKEN_LIMIT, "x\n" + "\u3000" * (TIKTOKEN_LIMIT - 2) + "y", "\t" * (LONG + 1) + "1"]:
        assert tok.encode(text) == ref_encode(ref, text)


@pytest.mark.parametrize("name", bundled_names())
@pytest.mark.parametrize("kind", list(CLASSES))
def test_one_megabyte_runs(name, kind):
    tok = toklane.load_tokenizer(name)
    text = _run(CLASSES[kind], 1 << 20)
    ids = tok.encode(text)
    assert tok.count(text) == len(ids) > 0
    assert tok.decode(ids) == text


@pytest.mark.parametrize("name", bundled_names())
def test_long_runs_in_batches(name):
    tok = toklane.load_tokenizer(name)
    text = "x" + " " * (LONG + 5) + "y"
    assert tok.encode_batch([text, "hi", text]) == [tok.encode(text), tok.encode("hi"), tok.encode(text)]


# Bundled vocabularies without a chat format of their own (Mistral v1 spells [INST] as text).
NO_CHAT_FORMAT = {"mistral-v1"}


@pytest.mark.parametrize("name", [n for n in bundled_names() if n not in NO_CHAT_FORMAT])
@pytest.mark.parametrize("kind", ["space", "mixed-whitespace"])
def test_long_runs_in_chat_counting(name, kind):
    text = _run(CLASSES[kind], 1 << 20)
    messages = [{"role": "user", "content": "x" + text + "y"}]
    assert toklane.count_tokens(messages, model=name) > toklane.load_tokenizer(name).count(text) // 2


# 16 MiB (the server's body limit) once per class, on an engine that needed a
# fix for it where one did (whitespace: tiktoken and tokenizers); 1 MiB of every
# class on every tokenizer above.
SIXTEEN = {
    "space": "qwen3.6",
    "tab": "deepseek-v4",
    "ideographic-space": "mistral-tekken",
    "nbsp": "qwen3.6",
    "mixed-whitespace": "mistral-tekken",
    "newline": "qwen3",
    "crlf": "o200k_base",
    "letter": "llama3",
    "digit": "o200k_harmony",
    "emoji": "cl100k_base",
    "cjk-punct": "qwen3",
    "dash": "qwen3",
}


@pytest.mark.parametrize(("kind", "name"), list(SIXTEEN.items()))
def test_sixteen_megabyte_runs(kind, name):
    tok = toklane.load_tokenizer(name)
    assert tok.count(_run(CLASSES[kind], 16 << 20)) > 0


@pytest.mark.parametrize("name", UPGRADED)
def test_fastokens_takes_runs_below_the_parallel_size_and_lone_surrogates(name):
    """fastokens (once it took over) encodes every text under PARALLEL_MIN characters itself: runs of
    each class just under it, and lone surrogates (read as U+FFFD, as every engine reads them), give
    the ids of the engine it replaced; longer texts go to that engine (it cuts runs)."""
    if name == "mistral-tekken":
        pytest.importorskip("mistral_common")
    tok = tokenizer(name, "fastokens")
    exact = tok._backend.exact
    for unit in CLASSES.values():
        text = "x" + _run(unit, PARALLEL_MIN - 10)[: PARALLEL_MIN - 10] + "y"
        assert tok.encode(text) == exact.encode(text, False), unit
    surrogates = {"a\ud800b": "a\ufffdb", "\udfff": "\ufffd", "<|endoftext|>\ud83d": "<|endoftext|>\ufffd"}
    for text, read_as in surrogates.items():
        assert tok.encode(text) == exact.encode(text, False) == tok.encode(read_as)


@pytest.mark.parametrize("name", UPGRADED)
def test_fastokens_cuts_long_texts_and_leaves_long_runs_to_the_exact_engine(name):
    """From PARALLEL_MIN characters fastokens gets a text cut at pre-token boundaries (its pieces as one
    batch); a text with a long stretch that has no such boundary (a run of one class of character)
    goes to the exact engine, which cuts runs. Either way the ids are the exact engine's."""
    if name == "mistral-tekken":
        pytest.importorskip("mistral_common")
    tok = tokenizer(name, "fastokens")
    exact = tok._backend.exact
    words = "The quick brown fox, 日本語のテキスト, ёлка 123 -- x\n\tdef f(): return 0\n"
    texts = [
        words * (2 * PARALLEL_MIN // len(words)),
        words * 100 + " " * (3 * PARALLEL_MIN) + words * 100,  # a long run inside ordinary text
        "a" * (PARALLEL_MIN + 5) + " b",
    ]
    for text in texts:
        for split in (False, True):
            assert tok._backend.encode(text, split) == exact.encode(text, split)
    assert tok.encode_batch(texts) == [exact.encode(t, False) for t in texts]
