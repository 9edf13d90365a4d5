"""A tokenizer.json's merges replayed as ranks: ``toklane._bpe.replay`` (C, what loads use) against
:func:`toklane.tokenizer.deepseek_v4._replay` (its Python reference), and the byte-level alphabet against
HF's ByteLevel decoder."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import decoders

from tests.profiles import examples
from toklane.errors import TokenizerLoadError
from toklane.tokenizer import deepseek_v4
from toklane.tokenizer.bytelevel import BYTE_TO_CHAR, token_string_to_bytes
from toklane.tokenizer.engines.compiled import NATIVE

pytestmark = pytest.mark.skipif(not NATIVE, reason="toklane._bpe is not built")


def _outcome(run) -> tuple:
    try:
        ranks, left = run()
    except TokenizerLoadError as exc:
        return ("refused", str(exc))
    return ("ok", list(ranks.items()), left.tobytes())


def _both(vocab: dict, merges: list) -> tuple[tuple, tuple]:
    model = {"type": "BPE", "vocab": vocab, "merges": merges}
    native = _outcome(lambda: deepseek_v4.replay(model, "f"))
    python = _outcome(lambda: deepseek_v4._replay(vocab, merges, "f"))
    return native, python


def test_the_deepseek_v4_file_replays_the_same_in_c_and_python(deepseek_json):
    model = json.loads(deepseek_json.read_text(encoding="utf-8"))["model"]
    native, python = _both(model["vocab"], model["merges"])
    assert native[0] == "ok" and native == python
    assert len(native[1]) == len(model["merges"]) + 256


_BYTES = {c: b for b, c in enumerate(BYTE_TO_CHAR)}


@st.composite
def merge_tables(draw: st.DrawFn) -> tuple[dict, list]:
    """A byte-level vocabulary grown by merges, then perhaps spoilt: merges out of order, a merge of
    unknown parts, an added token (in or out of the alphabet) in the vocabulary, a list-form merge,
    a malformed merge, a token repeated under two spellings."""
    vocab = {c: i for i, c in enumerate(BYTE_TO_CHAR)}
    merges: list = []
    letters = [*BYTE_TO_CHAR[97:101], "Ġ", "Ċ"]
    for _ in range(draw(st.integers(0, 12))):
        a = draw(st.sampled_from(letters + [t for t in vocab if len(t) > 1]))
        b = draw(st.sampled_from(letters))
        if a + b not in vocab:
            vocab[a + b] = len(vocab)
            merges.append(draw(st.sampled_from([f"{a} {b}", [a, b]])))
    spoil = draw(st.integers(0, 10))
    if spoil == 1 and len(merges) > 1:
        merges.reverse()
    elif spoil == 2:
        merges.append("zz qq")
    elif spoil == 3:
        vocab[draw(st.sampled_from(["<|end|>", "a b", "x\x85", "\u2581x"]))] = len(vocab)
    elif spoil == 4:
        merges.append(draw(st.sampled_from([[], ["a"], ["a", "b", "c"], 5, "ab", None])))
    elif spoil == 5:
        vocab["a "] = len(vocab)  # (the bytes of "aĠ" where a space were read as its latin-1 byte)
        vocab["aĠ"] = len(vocab)
    elif spoil == 6 and merges:
        del merges[draw(st.integers(0, len(merges) - 1))]
    elif spoil == 7:  # a part or the result no token (each form), the result perhaps a token
        merge = draw(st.sampled_from([["qq", "a"], ["a", "qq"], "a qq", "qq a", ["a", "ĠĊĠ"], "e Ċ", ["Ċ", "e"]]))
        if draw(st.booleans()):
            vocab.setdefault("".join(merge if isinstance(merge, list) else merge.split(" ")), len(vocab))
        merges.append(merge)
    elif spoil == 8:  # a part no byte-level string, in the vocabulary with its result
        vocab["\u2581x"] = len(vocab)
        vocab["\u2581xa"] = len(vocab)
        merges.append(draw(st.sampled_from(["\u2581x a", ["\u2581x", "a"]])))
    elif spoil == 9:  # spaces where a string merge has one
        merges.append(draw(st.sampled_from(["a b c", "a  b", " a", "a ", " "])))
    return vocab, merges


@settings(max_examples=examples(300), deadline=None)
@given(merge_tables())
def test_generated_merge_tables_replay_the_same_in_c_and_python(table):
    native, python = _both(*table)
    assert native == python


def test_a_malformed_merge_is_refused_not_raised():
    vocab = {c: i for i, c in enumerate(BYTE_TO_CHAR)} | {"ab": 256}
    for merge in ([], ["a", "b", "c"], 5, None, "ab"):
        native, python = _both(vocab, [merge])
        assert native == python and native[0] == "refused" and "merge 0" in native[1]


def test_byte_level_spelling_is_hf_bytelevel_decoders():
    """A token of the alphabet is its bytes; any other character makes the whole token not byte-level
    (HF's decoder then gives its UTF-8): space, controls and U+007F-U+00A0 are not in the alphabet."""
    hf = decoders.ByteLevel()
    tokens = [chr(c) for c in range(0x160)] + ["a b", "x\x85", "ĠĊ a", "Ġhello", "é", "<|x|>"]
    for token in tokens:
        data = token_string_to_bytes(token)
        spelled = data if data is not None else token.encode("utf-8", "surrogatepass")
        assert spelled.decode("utf-8", "replace") == hf.decode([token]), repr(token)
        assert (data is None) == any(c not in _BYTES for c in token), repr(token)


def _ranked_builds(ranks: dict[bytes, int], data: bytes) -> bool:
    """Ranked BPE (lowest rank first, leftmost on ties) over ``data``'s bytes ends in ``data`` itself."""
    parts = [data[i : i + 1] for i in range(len(data))]
    while len(parts) > 1:
        pairs = [(ranks.get(parts[i] + parts[i + 1]), i) for i in range(len(parts) - 1)]
        best = min(((r, i) for r, i in pairs if r is not None), default=None)
        if best is None:
            return False
        i = best[1]
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return True


def _rules_build(ranks: dict[bytes, int], left: list[int], data: bytes) -> bool:
    """HF's BPE: only a pair that is its token's rule (left part ``left[id]`` bytes long) merges."""
    parts = [data[i : i + 1] for i in range(len(data))]
    while len(parts) > 1:
        found = []
        for i in range(len(parts) - 1):
            t = ranks.get(parts[i] + parts[i + 1])
            if t is not None and t < len(left) and left[t] == len(parts[i]):
                found.append((t, i))
        if not found:
            return False
        i = min(found)[1]
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return True


@settings(max_examples=examples(300), deadline=None)
@given(merge_tables(), st.data())
def test_irregular_tokens_are_those_ranked_bpe_or_the_rules_do_not_build(table, data):
    """``irregular_ranks`` (C: one ranked pass checking each merge is its token's rule, rules_build where
    one is not) against both processes written plainly, on tables whose ranks and rules are shuffled."""
    from array import array

    from toklane.tokenizer.engines.compiled import irregular_ranks

    try:
        ranks, left = deepseek_v4.replay({"type": "BPE", "vocab": table[0], "merges": table[1]}, "f")
    except TokenizerLoadError:
        return
    made = sorted(i for t, i in ranks.items() if len(t) > 1)
    if len(made) > 1 and data.draw(st.booleans()):  # another merge order
        order = data.draw(st.permutations(made))
        by_id = {i: t for t, i in ranks.items()}
        ranks = ranks | {by_id[i]: j for i, j in zip(made, order, strict=True)}
    spoilt = array("I", left)
    for i in data.draw(st.lists(st.sampled_from(made), max_size=4)) if made else ():
        spoilt[i] = data.draw(st.integers(0, 4))  # another rule
    expected = sorted(
        i
        for t, i in ranks.items()
        if len(t) > 1 and not (_ranked_builds(ranks, t) and _rules_build(ranks, list(spoilt), t))
    )
    assert sorted(irregular_ranks(ranks, spoilt)) == expected
