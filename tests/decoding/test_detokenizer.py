"""IncrementalDetokenizer: any chunking concatenates to decode(all ids)."""

from __future__ import annotations

import codecs
import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples

TEXT = "Hé 日本語 🚀🔥 <think>x</think> 👨\u200d👩\u200d👧 done <|im_end|>"
ALL = ["qwen3.6", "qwen3", "deepseek-v4", "llama3", "cl100k_base", "o200k_base", "o200k_harmony", "mistral-tekken"]


@functools.cache
def valid_ids(name):
    tok = toklane.load_tokenizer(name)
    return [i for i, b in enumerate(tok.token_bytes_table) if b is not None], [t.id for t in tok.added_tokens]


def chunked(det, ids, cuts):
    out, prev = [], 0
    for cut in [*sorted(cuts), len(ids)]:  # repeated cuts give empty steps
        out.append(det.step(ids[prev:cut]))
        prev = cut
    out.append(det.flush())
    return out


@pytest.mark.parametrize("name", ["qwen3.6", "llama3", "deepseek-v4"])
@settings(max_examples=examples(40), deadline=None)
@given(data=st.data())
def test_any_chunking_equals_decode(name, data):
    tok = toklane.load_tokenizer(name)
    ids = tok.encode(TEXT)
    # Also arbitrary ids: byte-fragment tokens that never form valid UTF-8 on their own.
    ids += data.draw(st.lists(st.integers(0, 255), max_size=6))
    skip = data.draw(st.booleans())
    cuts = data.draw(st.lists(st.integers(0, len(ids)), max_size=12))
    det = toklane.IncrementalDetokenizer(tok, skip_special_tokens=skip)
    assert "".join(chunked(det, ids, cuts)) == tok.decode(ids, skip_special_tokens=skip)


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=examples(25), deadline=None)
@given(data=st.data())
def test_random_ids_every_tokenizer(name, data):
    """Random ids over the whole id space, added and special tokens included, any chunking."""
    tok = toklane.load_tokenizer(name)
    valid, added = valid_ids(name)
    pick = st.one_of(st.sampled_from(valid), st.sampled_from(added), st.integers(0, 255).filter(valid.__contains__))
    ids = data.draw(st.lists(pick, max_size=40))
    skip = data.draw(st.booleans())
    cuts = data.draw(st.lists(st.integers(0, len(ids)), max_size=10))
    det = toklane.IncrementalDetokenizer(tok, skip_special_tokens=skip)
    parts = chunked(det, ids, cuts)
    assert "".join(parts) == tok.decode(ids, skip_special_tokens=skip)
    assert det.pending_bytes == 0


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=examples(25), deadline=None)
@given(data=st.data())
def test_one_id_per_step_matches_incremental_utf8_decoder(name, data):
    """The decode loop's case, one id per step (as an int or a one-id list): every step's text is
    what codecs' incremental UTF-8 decoder gives for the token's bytes, and the whole is decode()."""
    tok = toklane.load_tokenizer(name)
    valid, added = valid_ids(name)
    pick = st.one_of(st.sampled_from(valid), st.sampled_from(added), st.integers(0, 255).filter(valid.__contains__))
    ids = data.draw(st.lists(pick, max_size=30))
    ids = tok.encode(TEXT)[: data.draw(st.integers(0, 40))] + ids
    skip = data.draw(st.booleans())
    as_int = data.draw(st.lists(st.booleans(), min_size=len(ids), max_size=len(ids)))
    special = {t.id for t in tok.added_tokens if t.special} if skip else set()
    ref = codecs.getincrementaldecoder("utf-8")("replace")
    det = toklane.IncrementalDetokenizer(tok, prompt_ids=ids[:3], skip_special_tokens=skip)
    parts = []
    for i, plain in zip(ids, as_int, strict=True):
        part = det.step(i if plain else [i])
        assert part == ref.decode(b"" if i in special else tok.token_bytes(i))
        assert det.pending_bytes == len(ref.getstate()[0])
        parts.append(part)
    assert "".join(parts) + det.flush() == tok.decode(ids, skip_special_tokens=skip)


def test_holds_back_incomplete_characters():
    tok = toklane.load_tokenizer("qwen3")
    ids = tok.encode("𓀀")  # an Egyptian hieroglyph: one character, several byte tokens
    assert len(ids) > 1
    det = toklane.IncrementalDetokenizer(tok)
    assert det.step(ids[:1]) == ""
    assert det.pending_bytes > 0
    assert det.step(ids[1:]) == "𓀀"
    assert det.flush() == ""


@pytest.mark.parametrize("name", ["qwen3", "cl100k_base", "llama3"])
def test_prompt_ending_mid_character_leaks_nothing(name):
    tok = toklane.load_tokenizer(name)
    ids = tok.encode("ask 🚀 now")
    # Find a split inside the rocket's bytes: the prompt keeps its first byte tokens.
    split = next(k for k in range(1, len(ids)) if "\ufffd" in tok.decode(ids[:k]))
    prompt, output = ids[:split], ids[split:]
    det = toklane.IncrementalDetokenizer(tok, prompt_ids=prompt)
    text = "".join(det.step([i]) for i in output) + det.flush()
    assert text == tok.decode(output)
    assert "🚀" not in text and "ask" not in text


@pytest.mark.parametrize(
    "bad",
    [-1, "vocab", "hole", 3.0, None, "5", True, 10**30],
    ids=lambda b: repr(b) if b not in ("vocab", "hole") else b,
)
def test_invalid_id_raises_and_keeps_state(bad):
    tok = toklane.load_tokenizer("cl100k_base")
    if bad == "vocab":
        bad = tok.vocab_size
    elif bad == "hole":
        bad = next(i for i, b in enumerate(tok.token_bytes_table) if b is None)
    ids = tok.encode("🚀 ok")
    det = toklane.IncrementalDetokenizer(tok, prompt_ids=tok.encode("prompt"))
    first = det.step(ids[:1])
    pending = det.pending_bytes
    assert pending > 0
    with pytest.raises(toklane.InvalidTokenIdError) as err:
        det.step([ids[1], bad, ids[1]])
    assert "cl100k_base" in str(err.value)
    assert det.pending_bytes == pending
    rest = det.step(ids[1:])
    assert first + rest + det.flush() == "🚀 ok"


def test_numpy_and_torch_ids():
    tok = toklane.load_tokenizer("qwen3.6")
    ids = tok.encode("数组 and tensors ✓")
    det = toklane.IncrementalDetokenizer(tok)
    arr = np.asarray(ids, dtype=np.int64)
    text = det.step(arr[:3]) + det.step(arr[3]) + "".join(det.step([x]) for x in arr[4:])
    assert text + det.flush() == tok.decode(ids)
    torch = pytest.importorskip("torch")
    det = toklane.IncrementalDetokenizer(tok)
    assert det.step(torch.tensor(ids)) + det.flush() == tok.decode(ids)


def test_skip_special_tokens_keeps_non_special_added_tokens():
    tok = toklane.load_tokenizer("qwen3")
    ids = tok.encode("<think>a</think>b<|im_end|>")
    det = toklane.IncrementalDetokenizer(tok, skip_special_tokens=True)
    assert det.step(ids) + det.flush() == tok.decode(ids, skip_special_tokens=True) == "<think>a</think>b"


def test_special_ids_computed_once_per_tokenizer():
    """skip_special_tokens reads one set per tokenizer (1,283 added tokens on DeepSeek-V4), not one per stream."""
    tok = toklane.load_tokenizer("deepseek-v4")
    a = toklane.IncrementalDetokenizer(tok, skip_special_tokens=True)
    b = toklane.IncrementalDetokenizer(tok, skip_special_tokens=True)
    assert a._skip is b._skip
    assert a._skip == {t.id for t in tok.added_tokens if t.special}
    assert not toklane.IncrementalDetokenizer(tok)._skip


def test_no_encode_or_decode_call(monkeypatch):
    tok = toklane.load_tokenizer("qwen3")
    ids = tok.encode("stop here 🚀")

    def boom(*a, **k):
        raise AssertionError("encode/decode called")

    monkeypatch.setattr(tok, "encode", boom)
    monkeypatch.setattr(tok, "decode", boom)
    det = toklane.IncrementalDetokenizer(tok, prompt_ids=ids)
    assert det.step(ids) + det.flush() == "stop here 🚀"
    sm = toklane.StopMatcher(tok, stop=["here"], stop_token_ids=tok.eos_token_ids)
    assert sm.step(ids).text == "stop "
