"""toklane's compiled encoder (``toklane._bpe`` behind :mod:`toklane.tokenizer.engines.compiled`).

The compiled grammars (DeepSeek-V4's; the Llama-3 family's: Qwen3.5/3.6, Qwen2/3, Llama 3 and
cl100k; o200k's case-aware one, and tekken's) and rank merges are compared with the tiktoken
engine over the same pattern and ranks (the reference for all but DeepSeek-V4 and tekken; for
DeepSeek-V4 proven equal to HF ``tokenizers`` in
``test_deepseek_v4_engine.py``, which now runs on the compiled encoder): on
hypothesis text over the characters where the alternatives meet, on pieces long
enough for the heap merge, on lone surrogates (declined, then encoded by the
reference), in batches and on all cores. The Unicode class table is checked
against the installed ``tokenizers``.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import unicodedata
from array import array

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from tests.references import CORPUS
from toklane import _bpe
from toklane.tokenizer import deepseek_v4, image_cache, patterns, unicode_classes
from toklane.tokenizer.engines import compiled
from toklane.tokenizer.pieces import PARALLEL_MIN


def test_the_compiled_encoder_is_built_and_used():
    """A dev install that quietly fell back to tiktoken fails here (CI tests the C path)."""
    assert compiled.NATIVE
    for name in COMPILED:
        if name != "mistral-tekken" or importlib.util.find_spec("mistral_common"):
            assert toklane.load_tokenizer(name).engine == "compiled"


COMPILED = ["deepseek-v4", "qwen3.6", "qwen3", "llama3", "cl100k_base", "o200k_base", "mistral-tekken"]


@pytest.fixture(scope="module", params=COMPILED)
def engines(request):
    if request.param == "mistral-tekken":
        pytest.importorskip("mistral_common")
    engine = toklane.load_tokenizer(request.param)._backend._engine
    assert isinstance(engine, compiled.CompiledEngine)
    return engine, engine._reference


def test_the_class_table_is_the_one_tokenizers_reads():
    """RUNS, regenerated from the installed tokenizers' Oniguruma: the same flags."""
    assert unicode_classes.encode_runs(unicode_classes.reference_flags()) == unicode_classes.RUNS


def test_the_cased_runs_are_the_ones_tokenizers_reads():
    """CASED_RUNS (letters' case for o200k's grammar), regenerated from the installed tokenizers."""
    flags = unicode_classes.reference_flags(unicode_classes._CASES)
    assert unicode_classes.encode_runs(flags) == unicode_classes.CASED_RUNS


def test_cased_class_table_flags():
    f = unicode_classes
    table = f.class_table((), cased=True)
    assert table[ord("A")] == f.L | f.P and table[ord("\u01c5")] == f.L | f.P  # Lu, Lt
    assert table[ord("a")] == f.L | f.S and table[ord("\u00df")] == f.L | f.S  # Ll
    assert table[ord("\u00aa")] == f.L and table[ord("\u02b0")] == f.L and table[0x4E00] == f.L  # Lo, Lm
    assert table[ord("!")] == f.P and table[ord("+")] == f.S and table[ord("\u0301")] == f.M
    assert f.class_table() == f._base_table()


def test_class_table_flags():
    table = unicode_classes.class_table(compiled._CJK_DEEPSEEK_V4)
    assert len(table) == unicode_classes.N_CODEPOINTS
    f = unicode_classes
    assert table[ord("a")] == f.L and table[ord("\u0301")] == f.M and table[ord("7")] == f.N
    assert table[ord("!")] == f.P and table[ord("+")] == f.S and table[ord(" ")] == f.WS
    assert table[0x4E00] == f.L | f.CJK and table[0x309B] == f.S | f.CJK and table[0x9FA6] == f.L
    assert table[0x1C] == 0  # a control Python calls a space but \s does not hold
    assert table[0xD800] == table[0xDFFF] == f.DECLINE


_TRICKY = (
    list("0123456789٠١٢٣४५६１２３⁰¹²³₀½Ⅻ〇𝟘")
    + list("\u4e00\u9fa5\u9fa6\u4dff\u3040\u3041\u3099\u309b\u309f\u30a0\u30fb\u30fc\u30ff\u3100\u3002")
    + list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~¡¿—«»“”、。・€©°")
    + list("\u0301\u0308\u0903\ufe0f\u20dd")
    + list("\r\n\t \u3000\u00a0\u2028\u0085\u000b\u001c\u200b\u200d\ufeff\u00ad\x00\x7f")
    + list("aZsStTxé한Ωжअع😀\ue000\u0378\U000e0001")
    + ["\r\n", "  ", "'s", "ab", "123", "\u4e00\u4e01", "ĠĠ", "\ud800", "\udfff"]
    + ["'", "'S", "'\u017f", "'T", "'re", "'RE", "'Ve", "'lL", "'m", "'D", "\u212a", "e\u0301", "\u00e9"]
    + list("AaZzßẞǅǄǆªºʰʱ")
    + ["/", "\n/", "Ab", "aB", "ABc", "\u0301A"]  # (o200k's case-aware letters)
)


@settings(max_examples=examples(3000), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.lists(st.sampled_from(_TRICKY), max_size=50).map("".join))
def test_tricky_text_matches_tiktoken(engines, text):
    fast, reference = engines
    ids = reference.encode_ordinary(text)
    assert fast.encode_ordinary(text) == ids
    assert fast.count_ordinary(text) == len(ids)


@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=80))
def test_any_text_matches_tiktoken(engines, text):
    fast, reference = engines
    assert fast.encode_ordinary(text) == reference.encode_ordinary(text)


def test_declined_text_goes_to_the_reference(engines):
    fast, reference = engines
    for text in ["a\ud800b", "\udfff", "x" * 300 + "\ud800" + "y" * 300, "\ud800\u0301abc"]:
        assert _bpe.encode(fast._encoder, text, False) is None
        assert _bpe.encode(fast._encoder, text, True) is None
        assert fast.encode_ordinary(text) == reference.encode_ordinary(text)
        assert fast.count_ordinary(text) == len(reference.encode_ordinary(text))


@pytest.mark.parametrize(
    "piece",
    [
        "😀🚀🔥👍🏽" * 40,  # one run of symbols, hundreds of bytes: the heap merge
        "∑∫√∞≠≤" * 50,
        "\U000e0001" * 200,  # one unmatched run ("other"): alternative 9
        "Ωжअ" * 60 + "\u0301" * 50,  # letters and marks
        "a" * 5000,
        " " * 3000 + "x",
        "\u200b" * 129,  # exactly around the short/long boundary (128 bytes)
        "\u200b" * 42 + "\u200c",
    ],
)
def test_long_pieces_merge_as_tiktoken_does(engines, piece):
    fast, reference = engines
    for text in (piece, "x " + piece + " y", piece + "\n" + piece):
        assert fast.encode_ordinary(text) == reference.encode_ordinary(text)


def test_pieces_recur_within_a_call(engines):
    """A piece that is no token is merged once and read back afterwards: every recurrence,
    and more distinct pieces than the call remembers, give the reference's ids."""
    fast, reference = engines
    words = [f"ঌ{chr(0x995 + k % 30)}ৠ{k}ঔ" for k in range(3000)]
    text = " ".join(words + words[::-1] + words)
    assert fast.encode_ordinary(text) == reference.encode_ordinary(text)
    assert fast.count_ordinary(text) == len(reference.encode_ordinary(text))


# Forty pieces that are no token: their ids come from merges.
_MERGED = [f"{'কখগঘঙচছজঝঞ'[k % 10]}{'ёжзийклмнопрстуфхцчшщ'[k % 20]}ৠ{k}" for k in range(40)]
_KANA = "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモ"


def _kana_word(k: int, length: int = 20) -> str:
    """A run of katakana (one pre-token on every grammar) of many ids: too many, with its bytes, for a
    kept slot, so it is kept in the wide table (distinct for each k)."""
    return "".join(_KANA[(k // len(_KANA) ** (i % 3) + i) % len(_KANA)] for i in range(length))


# Pieces kept in the wide table: many ids (katakana runs), past the short-piece merge (>= 128 bytes), and
# one too long for any table (merged on every call).
_WIDE = [_kana_word(k) for k in range(6)] + [_kana_word(7, 50), "∑∫√∞≠≤" * 8, "😀🚀🔥👍🏽" * 40]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    words=st.lists(st.sampled_from([*_MERGED, *_WIDE, "x", " y", "\n", "123"]), min_size=1, max_size=40),
    modes=st.permutations([0, 1, 2]),
)
def test_pieces_kept_across_calls_give_the_reference_ids(engines, words, modes):
    """The encoder keeps merged pieces' ids from call to call (a count keeps only how many): whatever
    the order of list, count and array calls, short texts (the GIL held) and long ones (released),
    every call gives the reference's ids."""
    fast, reference = engines
    for text in (" ".join(words), " ".join(words * (300 // len(words) + 1))):
        ids = reference.encode_ordinary(text)
        for mode in modes:
            got = _bpe.encode(fast._encoder, text, mode)
            assert got == (ids if mode == 0 else len(ids) if mode == 1 else array("I", ids).tobytes())


def test_more_pieces_than_are_kept_evict_each_other_soundly(engines):
    """Twenty thousand distinct merged pieces (more than the kept table's slots) and then the same
    again, in a different order: each slot now holds the piece last put there, and reading it back is
    right."""
    fast, reference = engines
    words = [f"ঌ{chr(0x995 + k % 30)}ৠ{k}ঔ" for k in range(20000)]
    for text in (" ".join(words), " ".join(reversed(words)), " ".join(words[::7])):
        assert _bpe.encode(fast._encoder, text, 1) == len(reference.encode_ordinary(text))
        assert fast.encode_ordinary(text) == reference.encode_ordinary(text)


def test_wide_pieces_evict_each_other_soundly(engines):
    """Three thousand distinct katakana runs (each too many ids for a kept slot: more than the wide
    table has slots), then again in another order, and counted: every call gives the reference's."""
    fast, reference = engines
    words = [_kana_word(k, 16 + k % 9) for k in range(3000)]
    for text in (" ".join(words), " ".join(reversed(words)), " ".join(words[::5])):
        assert _bpe.encode(fast._encoder, text, 1) == len(reference.encode_ordinary(text))
        assert fast.encode_ordinary(text) == reference.encode_ordinary(text)
    for word in words[:40]:  # one per call, kept by the calls before
        assert _bpe.encode(fast._encoder, word, 0) == reference.encode_ordinary(word)


def test_threads_share_the_kept_pieces_safely(engines):
    """Long texts (encoded without the GIL) on four threads at once, each text more distinct merged
    pieces than a kept table has slots, so slots are rewritten all the time: a call takes a kept table
    no other call holds, or goes without; every result is the reference's."""
    from concurrent.futures import ThreadPoolExecutor

    fast, reference = engines
    texts = [" ".join(f"ঌ{chr(0x995 + k % 30)}ৠ{k * 7 + shift}ঔ" for k in range(12000)) for shift in range(4)]
    expected = [reference.encode_ordinary(t) for t in texts]

    def run(offset: int) -> bool:
        picks = [(k + offset) % 4 for k in range(6)]
        return all(_bpe.encode(fast._encoder, texts[i], 0) == expected[i] for i in picks)

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(run, range(8)))


def test_batches_and_long_texts_on_all_cores(engines):
    fast, reference = engines
    block = "def f(x):\n    return x + 1  # 注释 ✓\n\n" + "Токенизатор 分词器 😀 トークン 123456\r\n"
    long_text = block * (2 * PARALLEL_MIN // len(block) + 1)
    assert len(long_text) >= 2 * PARALLEL_MIN
    assert fast.encode_ordinary(long_text) == reference.encode_ordinary(long_text)
    assert fast.count_ordinary(long_text) == len(reference.encode_ordinary(long_text))
    texts = [block * k for k in range(120)] + ["", "a", "\ud800", long_text, "b" + long_text + "\ud800"]
    assert fast.encode_ordinary_batch(texts) == [reference.encode_ordinary(t) for t in texts]
    assert fast.encode_ordinary_batch([long_text, long_text]) == [reference.encode_ordinary(long_text)] * 2


def test_build_rejects_bad_tables():
    table = unicode_classes.class_table()
    with pytest.raises(TypeError):
        _bpe.build([], table, 1)
    with pytest.raises(ValueError, match="grammar"):
        _bpe.build({b"a": 0}, table, 99)
    with pytest.raises(ValueError, match="one byte per code point"):
        _bpe.build({b"a": 0}, table[:-1], 1)
    with pytest.raises(ValueError, match="non-empty bytes"):
        _bpe.build({b"": 0}, table, 1)
    with pytest.raises(ValueError, match="out of range"):
        _bpe.build({b"a": -1}, table, 1)
    with pytest.raises(TypeError):
        _bpe.encode(_bpe.build({b"a": 0}, table, 1), b"a", False)


def test_build_packed_rejects_unsound_payloads():
    table = unicode_classes.class_table()
    good = image_cache.ranks_payload({b"a": 0, b"b": 1, b"ab": 2})
    assert _bpe.encode(_bpe.build_packed(good, table, 3), "ab", False) == [2]
    offsets_at = image_cache._COUNTS.size
    reordered = bytearray(good)
    reordered[offsets_at + 4 : offsets_at + 8] = (0).to_bytes(4, sys.byteorder)  # an empty token
    negative = bytearray(good)
    negative[offsets_at + 16 : offsets_at + 20] = (-1).to_bytes(4, sys.byteorder, signed=True)  # a rank
    twice = good.replace(b"abab", b"aaab")  # (tokens a, a, ab)
    for bad, match in (
        (good[:-1], "not a sound"),
        (b"", "not a sound"),
        (bytes(reordered), "not a sound"),
        (bytes(negative), "out of range"),
        (twice, "twice"),
    ):
        with pytest.raises(ValueError, match=match):
            _bpe.build_packed(bad, table, 3)
    with pytest.raises(ValueError, match="grammar"):
        _bpe.build_packed(good, table, 99)


def test_packed_build_and_decode_equal_the_dict_build(engines):
    """The encoder built from a ranks payload in place encodes as the one built from the dict, and
    decodes every id as the reference does (None for an id outside the ranks)."""
    fast, reference = engines
    ranks = dict(reference._ranks.items())
    packed = _bpe.build_packed(image_cache.ranks_payload(ranks), compiled._class_table(()), compiled._QWEN3_5)
    plain = _bpe.build(ranks, compiled._class_table(()), compiled._QWEN3_5)
    for text in CORPUS:
        assert _bpe.encode(packed, text, False) == _bpe.encode(plain, text, False)
    some = sorted(ranks.values())[::97]
    assert _bpe.decode(packed, some) == _bpe.decode(plain, tuple(some)) == reference.decode_bytes(some)
    assert fast.decode_bytes(some) == reference.decode_bytes(some)
    assert _bpe.decode(packed, [max(some) + 10**6]) is None and _bpe.decode(packed, ["x"]) is None


def test_ids_as_arrays_join_into_the_list_and_share_one_int_per_rank(engines):
    """encode's three modes agree; join_ids makes one list of parts' arrays; result lists share one
    int object per rank (made on its first use, never per id)."""
    fast, reference = engines
    encoder = fast._encoder
    parts = ["def f(x):\n    return x + 1  # 注释 ✓\n", "Токенизатор 分词器 😀 ", "1234567 it's"]
    lists = [_bpe.encode(encoder, p, 0) for p in parts]
    arrays = [_bpe.encode(encoder, p, 2) for p in parts]
    assert [list(array("I", a)) for a in arrays] == lists == [reference.encode_ordinary(p) for p in parts]
    assert [_bpe.encode(encoder, p, 1) for p in parts] == [len(ids) for ids in lists]
    assert _bpe.join_ids(encoder, arrays) == [i for ids in lists for i in ids]
    assert _bpe.join_ids(encoder, []) == []
    again = _bpe.encode(encoder, parts[1], 0)
    assert all(a is b for a, b in zip(again, lists[1], strict=True))
    assert _bpe.join_ids(encoder, [array("I", [10**9]).tobytes()]) == [10**9]  # past every rank: made
    with pytest.raises(ValueError, match="mode"):
        _bpe.encode(encoder, "a", 3)
    with pytest.raises(TypeError):
        _bpe.join_ids(encoder, [b"abc"])  # not whole 4-byte ids
    with pytest.raises(TypeError):
        _bpe.join_ids(encoder, (arrays[0],))


def test_a_byte_missing_from_the_ranks_is_declined():
    encoder = _bpe.build({b"a": 0, b"b": 1, b"ab": 2}, unicode_classes.class_table(), 1)
    assert _bpe.encode(encoder, "ab", False) == [2]
    assert _bpe.encode(encoder, "aab", False) == [0, 2]
    assert _bpe.encode(encoder, "ac", False) is None  # no token for "c": the reference decides


@pytest.mark.parametrize(
    ("name", "engine"), [("deepseek-v4", "tiktoken"), ("qwen3.6", "quicktok"), ("llama3", "quicktok")]
)
def test_pure_python_switch_keeps_the_regex_engines(name, engine):
    """TOKLANE_PURE_PYTHON=1 (or a build without a compiler): the engines of before, same ids."""
    text = "hello 世界 123 it's Cafe\u0301 😀"
    code = f"import toklane; t = toklane.load_tokenizer({name!r}); print(t.engine, t.encode({text!r}))"
    env = dict(os.environ, TOKLANE_PURE_PYTHON="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    used, ids = out.stdout.split(" ", 1)
    assert used == engine
    assert ids.strip() == str(toklane.load_tokenizer(name).encode(text))


def test_nfc_is_applied_first():
    """Qwen normalises to NFC: a decomposed text encodes as its composed form."""
    tok = toklane.load_tokenizer("qwen3.6")
    assert tok.encode("Cafe\u0301 nai\u0308ve") == tok.encode("Caf\u00e9 na\u00efve")
    assert tok.count("Cafe\u0301") == len(tok.encode("Caf\u00e9"))


# Characters NFC composes, reorders, replaces or leaves: marks of several classes, a composition
# exclusion, singletons, Hangul jamo and syllables, Tamil and Kannada two-part vowels, musical symbols.
_NFC = list(
    "ae\u0301\u0300\u0316\u0344\u0345\u0958\u093c\u091c\u0915\u1100\u1161\u11a8\uac00\u212b\u2126"
    "\u0cbf\u0cd5\u0bc6\u0bbe\u0f71\u0f72\u0f73 x\u00e9\U0001d15e\U0001d165\u3099\u304b\u05b0\ud800"
)


@settings(max_examples=examples(3000), deadline=None)
@given(text=st.lists(st.sampled_from(_NFC), max_size=24).map("".join))
def test_nfc_of_the_spans_is_nfc_of_the_text(text):
    """Only the spans around characters NFC may touch are normalised: the result is the text's NFC."""
    engine = toklane.load_tokenizer("qwen3.6")._backend._engine
    assert engine._prepare(text) == unicodedata.normalize("NFC", text)
    assert engine.encode_ordinary(text) == engine._reference.encode_ordinary(text)


def test_nfc_spans():
    flags = compiled._nfc_flags()
    assert _bpe.nfc_spans(flags, "plain ascii") == []
    assert _bpe.nfc_spans(flags, "caf\u00e9 \u4e00") == []
    assert _bpe.nfc_spans(flags, "cafe\u0301 ok e\u0301e\u0301 \u0301") == [(3, 5), (9, 15)]  # abutting spans merge


# (and more that NFC composes or keeps: Devanagari nukta pairs and virama, Malayalam two-part vowels)
_QUICK = [*_NFC, "\u0928", "\u0929", "\u094d", "\u0d46", "\u0d3e", "\u0d4a", "\u0f80", "\u0334"]


@settings(max_examples=examples(3000), deadline=None)
@given(text=st.lists(st.sampled_from(_QUICK), max_size=24).map("".join))
def test_the_quick_check_answers_as_python(text):
    """nfc_spans' quick check (Unicode's NFC_QC and canonical order, read from the flag bytes) says no
    only of text Python's NFC changes and leaves open only spans nfc_spans finds; is_nfc, which asks
    Python of the open ones alone, answers as Python's check of the whole text."""
    flags = compiled._nfc_flags()
    normalized = unicodedata.is_normalized("NFC", text)
    open_spans = _bpe.nfc_spans(flags, text, True)
    assert open_spans is not None or not normalized
    assert open_spans is None or set(open_spans) <= set(_bpe.nfc_spans(flags, text))
    assert compiled.is_nfc(text) == normalized


def test_the_nfc_flags_carry_the_quick_check():
    """A flagged character's byte: its combining class's rank (in the classes' order) << 2, and NFC_QC
    no exactly where NFC replaces it alone; the second of every canonical pair NFC composes is a maybe;
    the quick check answers without Python where it can (a virama in order: yes; marks out of order
    or a singleton: no), and leaves a composing pair open."""
    flags = compiled._nfc_flags()
    ranks: dict[int, set[int]] = {}
    for c in range(0x110000):
        ch = chr(c)
        if 0xD800 <= c < 0xE000:
            continue
        f = flags[c]
        assert bool(f) >= bool(unicodedata.combining(ch)), hex(c)
        ranks.setdefault(unicodedata.combining(ch), set()).add(f >> 2)
        assert (f & 3 == 2) == (unicodedata.normalize("NFC", ch) != ch), hex(c)
        parts = unicodedata.decomposition(ch).split()
        if len(parts) == 2 and not parts[0].startswith("<") and unicodedata.normalize("NFC", ch) == ch:
            assert flags[int(parts[1], 16)] & 3 == 1, hex(c)
    order = sorted(ranks)
    assert ranks[0] == {0} and all(len(ranks[cc]) == 1 for cc in order)
    assert [ranks[cc].pop() for cc in order] == list(range(len(order)))  # (the classes' order, ranked)
    assert _bpe.nfc_spans(flags, "\u0915\u094d\u0937", True) == []
    assert _bpe.nfc_spans(flags, "a\u0301\u0316", True) is None and _bpe.nfc_spans(flags, "\u212b", True) is None
    assert _bpe.nfc_spans(flags, "xe\u0301", True) == [(1, 3)]


def test_the_patterns_it_compiles():
    assert compiled._grammars() == {
        deepseek_v4.PATTERN: (compiled._DEEPSEEK_V4, compiled._CJK_DEEPSEEK_V4, False),
        patterns.QWEN3_5: (compiled._QWEN3_5, (), False),
        patterns.QWEN2: (compiled._QWEN2, (), False),
        patterns.LLAMA3: (compiled._LLAMA3, (), False),
        patterns.CL100K: (compiled._LLAMA3, (), False),
        patterns.O200K: (compiled._O200K, (), True),
        patterns.TEKKEN: (compiled._TEKKEN, (), True),
    }


def test_the_compiled_irregular_scan_agrees_with_the_python_one():
    """``_bpe.irregular``: the tokens rank BPE does not build from their own bytes. None in DeepSeek-V4's
    ranks (trained BPE); in Llama 3's, each one it finds is one ``irregular.find_irregular`` finds (which
    also counts tokens built through a part ranked after them)."""
    from toklane.tokenizer import irregular

    assert _bpe.irregular(toklane.load_tokenizer("deepseek-v4")._backend._engine._encoder) == []
    engine = toklane.load_tokenizer("llama3")._backend._engine
    found = _bpe.irregular(engine._encoder)
    ranks = dict(engine._reference._ranks.items())
    assert found and set(found) <= set(irregular.find_irregular(ranks))
    assert _bpe.irregular(engine._encoder, None) == found


def _mapped_image(tmp_path, monkeypatch, payload: bytes) -> memoryview:
    """``payload`` stored in a fresh image cache and memory-mapped back (aligned as a load maps it)."""
    monkeypatch.setenv("TOKLANE_CACHE_DIR", str(tmp_path))
    image_cache.store("encoder-test", "k", payload)
    view = image_cache.mapped("encoder-test", "k")
    assert view is not None
    return view


def test_an_encoder_image_maps_back_to_the_same_encoder(tmp_path, monkeypatch):
    """An encoder's tables as an image, memory-mapped: the same ids, decode and irregular tokens as the
    encoder built from the ranks, on the corpus and on every byte."""
    tok = toklane.load_tokenizer("cl100k_base")
    built = tok._backend.inner._engine._encoder if hasattr(tok._backend, "inner") else tok._backend._engine._encoder
    classes = compiled._class_table(())
    view = _mapped_image(tmp_path, monkeypatch, _bpe.encoder_image(built))
    mapped = _bpe.build_mapped(view, classes, compiled._LLAMA3)
    assert mapped is not None
    for text in [*CORPUS, "".join(map(chr, range(1, 0x800)))]:
        assert _bpe.encode(mapped, text, 0) == _bpe.encode(built, text, 0)
    ids = _bpe.encode(built, CORPUS[3], 0)
    assert _bpe.decode(mapped, ids) == _bpe.decode(built, ids)
    assert _bpe.irregular(mapped) == _bpe.irregular(built)
    assert _bpe.encoder_image(mapped) == _bpe.encoder_image(built)


def test_an_unsound_encoder_image_is_refused_not_read(tmp_path, monkeypatch):
    """An image whose checksum holds but whose tables do not (a rank or a token past the tables, no
    empty slot, a short or foreign image, a payload off its alignment): build_mapped gives None."""
    G = compiled._QWEN3_5  # (any grammar: only the tables are read)
    long = b"abcdefghijk"  # (past INLINE_KEY: its slot's key holds its start in the blob)
    ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 257, long: 258}
    small = _bpe.build(ranks, compiled._class_table(()), G)
    image = bytearray(_bpe.encoder_image(small))
    header = 4 + 4 + 8 + 4 + 4 + 4 * 256
    n_slots = int.from_bytes(image[8:16], sys.byteorder) + 1

    def size(k: int) -> int:  # (a slot: key (8 bytes), rank, size)
        return int.from_bytes(image[header + 16 * k + 12 : header + 16 * k + 16], sys.byteorder)

    filled = next(k for k in range(n_slots) if size(k))
    longest = next(k for k in range(n_slots) if size(k) == len(long))

    def spoilt(at: int, value: int) -> bytes:
        out = bytearray(image)
        out[at : at + 4] = value.to_bytes(4, sys.byteorder)
        return bytes(out)

    slot = header + 16 * filled
    full = bytearray(image)
    for k in range(n_slots):  # (every slot taken: a look-up of an absent token would never end)
        if not size(k):
            full[header + 16 * k : header + 16 * k + 16] = image[slot : slot + 16]
    bad = {
        "rank past the table": spoilt(slot + 8, 10**6),
        "token past the blob": spoilt(header + 16 * longest, 10**6),
        "no empty slot": bytes(full),
        "truncated": bytes(image[:-1]),
        "foreign magic": spoilt(0, 0x12345678),
        "a byte's rank past the table": spoilt(header - 4, 10**6),
    }
    classes = compiled._class_table(())
    assert _bpe.build_mapped(_mapped_image(tmp_path / "ok", monkeypatch, bytes(image)), classes, G) is not None
    for name, payload in bad.items():
        assert _bpe.build_mapped(_mapped_image(tmp_path / name, monkeypatch, payload), classes, G) is None, name
    shifted = _mapped_image(tmp_path / "shifted", monkeypatch, b"\0" + bytes(image))[1:]
    assert _bpe.build_mapped(shifted, classes, G) is None
