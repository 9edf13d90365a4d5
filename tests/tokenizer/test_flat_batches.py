"""Tokenizer.encode_batch_flat: ``(ids, offsets)`` numpy arrays holding exactly what
encode_batch returns, on every bundled tokenizer and every engine path (quicktok alone,
quicktok with tiktoken for some words, tiktoken, HF tokenizers, special tokens)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from tests.tokenizer.fallback import without_compiled
from toklane.tokenizer.pieces import PARALLEL_MIN
from toklane.tokenizer.registry import bundled_names

# Pieces that send words down each path: irregular tokens (qwen3.6 俱乐部, llama3 việc / .:.:),
# combining marks, lone surrogates, special-token strings of several families, long digits.
PIECES = [
    "hello",
    " world",
    "  ",
    "\n",
    "日本語",
    "俱乐部",
    " việc",
    ".:.:",
    "e\u0301",
    "\u0915\u093f",
    "🙂",
    "\ud800",
    "12345",
    "<|im_start|>",
    "<|endoftext|>",
    "<think>",
    "[INST]",
    "<|begin_of_text|>",
    "<｜end▁of▁sentence｜>",
    "",
    "\t",
    " кот",
]


def assert_flat(tok: toklane.Tokenizer, texts: list[str], **options: bool) -> None:
    ids, offsets = tok.encode_batch_flat(texts, **options)
    expected = tok.encode_batch(texts, **options)
    assert ids.dtype == np.uint32 and offsets.dtype == np.int64
    assert offsets.shape == (len(texts) + 1,) and offsets[0] == 0
    assert np.diff(offsets).tolist() == [len(x) for x in expected]
    assert ids.tolist() == [i for x in expected for i in x]


@pytest.mark.parametrize("name", bundled_names())
@settings(max_examples=examples(40), deadline=None)
@given(
    batch=st.lists(st.lists(st.sampled_from(PIECES) | st.text(max_size=6), max_size=10).map("".join), max_size=10),
    add=st.booleans(),
    split=st.booleans(),
)
def test_flat_batch_holds_encode_batch_end_to_end(name, batch, add, split):
    assert_flat(toklane.load_tokenizer(name), batch, add_special_tokens=add, split_special_tokens=split)


@pytest.mark.parametrize("name", ["qwen3.6", "llama3"])
def test_flat_batch_with_many_words_for_tiktoken(name):
    """Enough text with irregular tokens that those texts are encoded on the thread pool,
    interleaved with texts quicktok encodes alone."""
    heavy = " ".join(PIECES[4:9]) * (PARALLEL_MIN // 40)
    texts = [heavy if k % 3 == 0 else f"plain text number {k}" for k in range(12)]
    assert_flat(toklane.load_tokenizer(name), texts)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama3", "qwen3", "mistral-tekken"])
def test_a_batch_on_all_cores_is_each_text_encoded_alone(name):
    """A batch with enough text in long enough texts is checked and encoded text by text on the
    pool (quicktok engines, where ``toklane._bpe`` is not built): each text's ids are what encoding it
    alone gives, in order."""
    tok = without_compiled(name)
    if tok._backend._engine.threads < 2:
        pytest.skip("one core: batches stay on the caller's thread")
    texts = ["", "\ud800 x", "".join(PIECES) * 300, " việc .:.: " * 500, "plain " * 2000, "🙂"]
    assert tok._backend._engine._on_all_cores(texts), "the batch must take the path under test"
    alone = [tok.encode(t, split_special_tokens=True) for t in texts]
    assert tok.encode_batch(texts, split_special_tokens=True) == alone
    assert_flat(tok, texts, split_special_tokens=True)


def test_flat_batch_of_nothing_and_of_non_text():
    tok = toklane.load_tokenizer("qwen3.6")
    ids, offsets = tok.encode_batch_flat([])
    assert ids.shape == (0,) and offsets.tolist() == [0]
    with pytest.raises(TypeError, match="encode_batch_flat"):
        tok.encode_batch_flat(["a", 5])  # type: ignore[list-item]


def test_flat_batch_on_the_hf_tokenizers_engine(deepseek_json):
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import normalizers

    hf = HFTokenizer.from_file(str(deepseek_json))
    hf.normalizer = normalizers.NFKC()  # a pipeline only HF's engine runs exactly
    tok = toklane.load_tokenizer(hf)
    assert tok.engine == "tokenizers"
    texts = ["".join(PIECES), "", " x = f(y)\n" * 40, "<｜end▁of▁sentence｜>", "\ud800 1234567"]
    assert_flat(tok, texts)
    assert_flat(tok, texts, split_special_tokens=True)
