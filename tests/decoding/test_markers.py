"""MarkerScanner against a from-scratch search, over random growth, shrinks and placeholders."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane.tokenizer.bytelevel import bytes_to_token_string

from .reference import id_marker_ref, marker_ref

try:
    import torch
except ImportError:  # torch is optional: numpy arrays only
    torch = None


def as_array(ids, rng):
    """The output as a numpy array or a torch tensor (what engines hold)."""
    if torch is None or rng.random() < 0.5:
        return np.asarray(ids, dtype=np.int64)
    return torch.tensor(ids, dtype=torch.long)


def drive(scanner, stream, rng, check, *, placeholders=True, shrinks=True):
    """Grow ``stream`` in random chunks, shrink it sometimes (announced or not), leave -1
    placeholders at the end sometimes; after each update compare with ``check(output)``."""
    out: list[int] = []
    pos = 0
    while pos < len(stream):
        k = rng.choice([1, 1, 1, 2, 3, 5])
        out = [i for i in out if i >= 0]  # placeholders become real tokens
        out.extend(stream[pos : pos + k])
        pos += k
        if shrinks and rng.random() < 0.2 and out:
            n = rng.randint(1, min(4, len(out)))
            del out[len(out) - n :]
            pos -= n
            if rng.random() < 0.5:  # shrink then regrow before the next update: must be announced
                scanner.rollback(n)
                regrow = stream[pos : pos + rng.randint(0, 3)]
                out.extend(regrow)
                pos += len(regrow)
        if placeholders and rng.random() < 0.3:
            out.extend([-1] * rng.randint(1, 3))
        view = out if rng.random() < 0.7 else as_array(out, rng)
        assert scanner.update(view) == check(out), (out, stream)


@settings(max_examples=examples(300), deadline=None)
@given(
    markers=st.lists(st.lists(st.integers(0, 4), min_size=1, max_size=3), min_size=1, max_size=3),
    stream=st.lists(st.integers(0, 5), max_size=40),
    seed=st.integers(0, 2**32 - 1),
)
def test_id_markers_equal_reference(markers, stream, seed):
    rng = random.Random(seed)
    drive(toklane.MarkerScanner(markers), stream, rng, lambda out: id_marker_ref(markers, out))


def test_single_id_marker_and_placeholder_in_the_middle():
    sc = toklane.MarkerScanner([[7]])
    assert sc.update([1, 2, -1, 7]) == -1  # a placeholder not yet filled: nothing past it is read
    assert sc.update([1, 2, 3, 7]) == 3
    assert (sc.start, sc.end) == (3, 4)
    assert sc.update([1, 2, 3]) == -1  # shrunk past the marker
    assert sc.update([1, 7, 7, 7]) == 3  # changed before the watermark without a rollback: only index 3 is new
    sc.truncate(1)
    assert sc.update([1, 7, 7, 7]) == 1


def pieces_tokens(tok, pieces):
    """Ids of tokens whose bytes are exactly ``pieces`` (byte-level vocabulary lookups)."""
    ids = [tok.token_to_id(bytes_to_token_string(p)) for p in pieces]
    assert None not in ids, pieces
    return ids


@pytest.mark.parametrize("name", ["cl100k_base", "llama3"])
def test_think_end_split_across_merged_tokens(name):
    tok = toklane.load_tokenizer(name)
    for pieces in ([b" </", b"think", b">\n"], [b".</", b"think", b">The"], [b"</", b"think", b">"]):
        ids = [*tok.encode("Some reasoning"), *pieces_tokens(tok, pieces), *tok.encode(" answer")]
        n_before = len(tok.encode("Some reasoning"))
        for step in (1, 2, len(ids)):
            sc = toklane.MarkerScanner.from_text(tok, "</think>")
            got = -1
            for k in range(step, len(ids) + step, step):
                got = sc.update(ids[:k])
            assert got == n_before, (pieces, step)
            assert sc.end == n_before + 3


FRAGMENTS = ["</think>", "</", "think", ">", "<think>", " </think>\n", ".</think>The", "x", "\n\n", "thinking", "<"]


@pytest.mark.parametrize(
    ("name", "markers"),
    [
        ("cl100k_base", ["</think>"]),
        ("llama3", ["</think>", "</reasoning>"]),
        ("qwen3", ["</think>"]),  # an added token: matched by id only
        ("qwen3", ["</think>", "Final:"]),  # an added token or ordinary text
        ("o200k_harmony", ["<|channel|>final<|message|>"]),  # added tokens around ordinary text
    ],
)
@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_text_markers_equal_reference(name, markers, data):
    tok = toklane.load_tokenizer(name)
    frags = [*FRAGMENTS, *markers, "<|channel|>", "final", "<|message|>", "Final", ":"]
    text_parts = data.draw(st.lists(st.sampled_from(frags), max_size=12))
    # Encode fragment by fragment and whole: different splits of the same text.
    if data.draw(st.booleans()):
        stream = tok.encode("".join(text_parts))
    else:
        stream = [i for part in text_parts for i in tok.encode(part)]
    start = data.draw(st.integers(0, 3))
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1)))
    scanner = toklane.MarkerScanner.from_text(tok, markers, start=start)
    drive(scanner, stream, rng, lambda out: marker_ref(tok, markers, out, start))


def test_added_token_marker_is_not_matched_in_plain_text():
    tok = toklane.load_tokenizer("qwen3")
    end = tok.token_to_id("</think>")
    plain = pieces_tokens(tok, [b"</", b"think", b">"])  # the same text in ordinary tokens
    sc = toklane.MarkerScanner.from_text(tok, "</think>")
    assert sc.update(plain) == -1
    assert sc.update([*plain, 5, end]) == len(plain) + 1


def test_torch_output_and_bad_markers():
    torch = pytest.importorskip("torch")
    sc = toklane.MarkerScanner([[3, 4]])
    assert sc.update(torch.tensor([1, 3, 4, -1])) == 1
    for bad in ([], [[]], [[-1]], [[1.5]]):
        with pytest.raises(ValueError):
            toklane.MarkerScanner(bad)
    with pytest.raises(ValueError):
        toklane.MarkerScanner.from_text("qwen3", [])


def test_from_text_makes_no_encode_or_decode_call(monkeypatch):
    tok = toklane.load_tokenizer("llama3")

    def boom(*a, **k):
        raise AssertionError("encode/decode called")

    monkeypatch.setattr(tok, "encode", boom)
    monkeypatch.setattr(tok, "decode", boom)
    sc = toklane.MarkerScanner.from_text(tok, "</think> and more text never seen before")
    sc.update([1, 2, 3])
    toklane.ThinkingBudget(tok, "qwen3", max_thinking_tokens=1).update([1, 2])
    toklane.ThinkingBudget(tok, "gpt_oss", max_thinking_tokens=1).update([1, 2])


def test_per_tokenizer_tables_go_with_the_tokenizer(deepseek_json):
    """Compiled markers are cached on the tokenizer's own tables (weakly keyed): a wrapped
    tokenizer that is dropped takes them along, scanners and budgets included."""
    import gc
    import weakref

    import tokenizers

    from toklane.decoding._symbols import token_symbols

    tok = toklane.load_tokenizer(tokenizers.Tokenizer.from_file(str(deepseek_json)))
    scanner = toklane.MarkerScanner.from_text(tok, "</think> done")
    budget = toklane.ThinkingBudget(tok, "olmo3", max_thinking_tokens=3)
    budget.update([1, 2, 3, 4])
    refs = weakref.ref(tok), weakref.ref(token_symbols(tok))
    del tok, scanner, budget
    gc.collect()
    assert [r() for r in refs] == [None, None]
