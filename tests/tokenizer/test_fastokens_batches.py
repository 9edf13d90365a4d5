"""Batches once fastokens runs a tokenizer: read from its flat buffers (``encode_batch_flat``) as lists
of shared ints, with the texts that go their own way (NFC may change them, or they are long enough to be
cut) found in one compiled pass (``toklane._bpe.flagged``) and encoded one by one. Property-tested
against the exact engine fastokens replaced, on real bundled vocabularies."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toklane.tokenizer.engines import compiled
from toklane.tokenizer.engines.compiled import _nfc_flags
from toklane.tokenizer.pieces import PARALLEL_MIN

from ..profiles import examples
from .test_front import _PIECES, _tok

#: A Qwen vocabulary (NFC first), two without a form, DeepSeek-V4 (read from its tokenizer.json).
NAMES = ["qwen3.6", "cl100k_base", "o200k_base", "deepseek-v4"]

_LONG = "The quick brown fox, 42 times.\n" * (PARALLEL_MIN // 31 + 1)
batches = st.lists(
    st.lists(st.sampled_from(_PIECES) | st.text(max_size=8), max_size=10).map("".join)
    | st.sampled_from([_LONG, _LONG + "e\u0301", _LONG[:-3] + " " * 600]),
    max_size=6,
)


@pytest.mark.parametrize("name", NAMES)
def test_batches_and_long_texts_equal_the_exact_engine(name: str) -> None:
    tok = _tok(name, True)
    exact = tok._backend.exact

    @settings(max_examples=examples(40), deadline=None)
    @given(batches, st.booleans())
    def check(texts: list[str], split: bool) -> None:
        want = [exact.encode(t, split) for t in texts]
        assert tok.encode_batch(texts, split_special_tokens=split) == want
        for text, ids in zip(texts, want, strict=True):
            if len(text) >= PARALLEL_MIN:
                assert tok.encode(text, split_special_tokens=split) == ids

    check()


def _flagged_reference(flags: bytes | None, texts: list[str], longest: int) -> list[int]:
    return [
        k for k, t in enumerate(texts) if len(t) >= longest or (flags is not None and any(flags[ord(c)] for c in t))
    ]


@pytest.mark.skipif(not compiled.NATIVE, reason="flagged is part of toklane._bpe")
@settings(max_examples=examples(300), deadline=None)
@given(
    texts=st.lists(st.text(max_size=12) | st.sampled_from(["e\u0301", "\u212b", "café", "abc"]), max_size=10),
    longest=st.integers(0, 14),
    nfc=st.booleans(),
)
def test_flagged_finds_the_long_and_the_flagged_texts(texts: list[str], longest: int, nfc: bool) -> None:
    flags = _nfc_flags() if nfc else None
    got = compiled._bpe.flagged(flags, texts, longest)
    assert got == _flagged_reference(flags, texts, longest)
    # every text NFC would change is among the flagged ones
    if nfc:
        assert all(k in got for k, t in enumerate(texts) if unicodedata.normalize("NFC", t) != t)


@pytest.mark.skipif(not compiled.NATIVE, reason="flagged is part of toklane._bpe")
def test_flagged_refuses_what_is_no_list_of_str() -> None:
    with pytest.raises(TypeError, match="item 1 is bytes"):
        compiled._bpe.flagged(None, ["a", b"b"], 5)
    with pytest.raises(TypeError):
        compiled._bpe.flagged(b"short", ["a"], 5)
    with pytest.raises(TypeError):
        compiled._bpe.flagged(None, ("a",), 5)
