"""The streaming multi-pattern matcher against a naive reference, over every chunking."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from toklane import streammatch
from toklane.streammatch import Automaton, Literals, StreamMatcher


def naive_matches(patterns, text):
    """Earliest-ending, longest-at-that-end, non-overlapping matches: (pattern, end)."""
    out, i, start = [], 0, 0
    while i < len(text):
        i += 1
        hits = [(len(p), k) for k, p in enumerate(patterns) if i - len(p) >= start and text[i - len(p) : i] == p]
        if hits:
            length, _k = max(hits)
            first = min(kk for ll, kk in hits if ll == length)
            out.append((first, i))
            start = i
    return out


def stream_matches(patterns, chunks):
    m = StreamMatcher(patterns)
    out, offset = [], 0
    for chunk in chunks:
        pos = 0
        while (hit := m.search(chunk, pos)) is not None:
            out.append((hit.pattern, offset + hit.end))
            pos = hit.end
        offset += len(chunk)
    return out, m.partial


@settings(max_examples=examples(400), deadline=None)
@given(
    patterns=st.lists(st.text(alphabet="ab<>/", min_size=1, max_size=5), min_size=1, max_size=4, unique=True),
    text=st.text(alphabet="ab<>/x", max_size=40),
    cuts=st.lists(st.integers(min_value=0, max_value=40), max_size=8),
)
def test_stream_equals_naive_for_every_chunking(patterns, text, cuts):
    bounds = sorted({0, len(text), *(c for c in cuts if c <= len(text))})
    chunks = [text[a:b] for a, b in itertools.pairwise(bounds)]
    got, partial = stream_matches(patterns, chunks)
    assert got == naive_matches(patterns, text)
    # partial: the longest suffix after the last match that is a proper prefix of a pattern
    tail = text[got[-1][1] :] if got else text
    expect = max(
        (n for n in range(1, len(tail) + 1) for p in patterns if p.startswith(tail[-n:]) and n < len(p)), default=0
    )
    assert partial == expect


def scan_matches(patterns, chunks):
    """As the parsers read long chunks: the held tail prepended, the compiled scan over the rest."""
    auto = Automaton(patterns)
    m = auto.matcher()
    out, offset, hold = [], 0, ""
    for chunk in chunks:
        s = hold + chunk
        m.reset()
        hits = m.find_all(s)
        assert hits is not None
        base = offset - len(hold)
        out += [(k, base + end) for k, start, end in hits]
        assert all(s[start:end] == patterns[k] for k, start, end in hits)
        hold = s[len(s) - m.partial :] if m.partial else ""
        offset += len(chunk)
    return out, m.partial


@settings(max_examples=examples(600), deadline=None)
@given(
    patterns=st.lists(st.text(alphabet="ab<>/", min_size=1, max_size=5), min_size=1, max_size=4, unique=True),
    text=st.text(alphabet="ab<>/x", max_size=40),
    cuts=st.lists(st.integers(min_value=0, max_value=40), max_size=8),
)
def test_compiled_scan_equals_naive_where_it_applies(patterns, text, cuts):
    auto = Automaton(patterns)
    inside = any(q.find(p, 1, len(q) - 1) >= 0 for p in patterns for q in patterns if len(p) + 2 <= len(q))
    assert (auto.matcher().find_all(text) is None) == inside  # the scan refuses exactly the unsafe sets
    if inside:
        return
    bounds = sorted({0, len(text), *(c for c in cuts if c <= len(text))})
    chunks = [text[a:b] for a, b in itertools.pairwise(bounds)]
    assert scan_matches(patterns, chunks) == stream_matches(patterns, chunks)
    assert scan_matches(patterns, [text])[0] == naive_matches(patterns, text)


@settings(max_examples=examples(300), deadline=None)
@given(
    patterns=st.lists(st.binary(min_size=1, max_size=4).map(lambda b: b"<" + b), min_size=1, max_size=4, unique=True),
    data=st.binary(max_size=40),
)
def test_compiled_scan_over_bytes(patterns, data):
    auto = Automaton(patterns)
    hits = auto.matcher().find_all(data)
    if hits is None:
        return
    assert [(k, end) for k, _, end in hits] == stream_matches(patterns, [data])[0]


@example(patterns=["<ab>"], pieces=[("<", 5), ("<ab>", 1)])  # the switch right before a match
@settings(max_examples=examples(300), deadline=None)
@given(
    patterns=st.lists(
        st.text(alphabet="ab<>/", max_size=5).map(lambda t: "<" + t), min_size=1, max_size=5, unique=True
    ),
    pieces=st.lists(st.tuples(st.sampled_from(["<", "<a", "</", "<ab>", "x"]), st.integers(0, 300)), max_size=12),
)
def test_scan_jumping_between_a_shared_first_symbol_equals_the_dfa(patterns, pieces):
    """Patterns that all start with one symbol are found by jumping between its occurrences, then by
    one compiled scan once they turn out common: long texts, sparse and dense in that symbol."""
    text = "".join(piece * n for piece, n in pieces)
    auto = Automaton(patterns)
    hits = auto.matcher().find_all(text)
    if hits is None:
        return
    assert [(k, end) for k, _, end in hits] == stream_matches(patterns, [text])[0]
    assert hits == [(auto._index[m.group()], *m.span()) for m in auto._scan.finditer(text)]


def test_compiled_scan_waits_for_a_held_pattern():
    m = Automaton(["</think>"]).matcher()
    assert m.search("a </th") is None and m.partial == 4
    assert m.find_all("ink>") is None  # inside a pattern: the caller prepends the held text and resets


def test_bytes_patterns_across_token_splits():
    auto = Automaton([b"</think>"])
    for pieces in ([b" </", b"think", b">\n"], [b".</", b"think", b">The"], [b"<", b"/", b"th", b"ink>"]):
        m = auto.matcher()
        hits = [(i, h) for i, p in enumerate(pieces) if (h := m.search(p)) is not None]
        assert len(hits) == 1 and hits[0][0] == len(pieces) - 1


def test_bad_patterns():
    with pytest.raises(ValueError):
        Automaton([])
    with pytest.raises(ValueError):
        Automaton([""])
    with pytest.raises(TypeError):
        Automaton(["a", b"b"])


@settings(max_examples=examples(300), deadline=None)
@given(
    patterns=st.lists(st.text(alphabet="ab<>/", min_size=1, max_size=5), min_size=1, max_size=4, unique=True),
    before=st.text(alphabet="ab<>/x", max_size=6),
    chunk=st.text(alphabet="ab<>/x", max_size=8),
)
def test_passes_means_the_chunk_is_plain_text(patterns, before, chunk):
    """passes(chunk): nothing pending and no pattern starts in it -- exactly when search reads the
    chunk without a match and leaves the matcher at the root; it never changes the state."""
    m = StreamMatcher(patterns)
    pos = 0
    while (hit := m.search(before, pos)) is not None:
        pos = hit.end
    state = m.partial
    ok = m.passes(chunk)
    assert m.partial == state
    if ok:
        assert m.search(chunk) is None and m.partial == 0
    else:
        assert state or any(c in {p[0] for p in patterns} for c in chunk)


# The compiled scan (toklane._trie) against the pure-Python one, symbol by symbol: every str kind
# (one, two and four bytes per character), bytes, a shared first symbol or none, duplicates and
# patterns that extend a shorter one (never reported), on texts dense in the patterns' symbols.
_SYMBOLS = ["a", "b", "<", "/", ">", "é", "ж", "\U0001f600", "\x00"]


@settings(max_examples=examples(500), deadline=None)
@given(
    patterns=st.lists(st.text(alphabet=_SYMBOLS, min_size=1, max_size=5), min_size=1, max_size=6),
    lead=st.booleans(),
    text=st.text(alphabet=[*_SYMBOLS, "x"], max_size=60),
)
def test_the_compiled_scan_equals_the_python_scan(patterns, lead, text):
    if lead:
        patterns = ["<" + p for p in patterns]
    auto = Automaton(patterns)
    expected = auto._find_all_in_python(text)
    if expected is None:  # (no compiled scan either: the DFA reads such sets)
        assert auto._tables is None and auto.find_all(text) is None
        return
    if streammatch.NATIVE:
        assert auto._tables is not None
    assert auto.find_all(text) == expected
    raw = [p.encode() for p in patterns]
    auto_bytes = Automaton(raw)
    data = text.encode()
    assert auto_bytes.find_all(data) == auto_bytes._find_all_in_python(data)


def test_the_compiled_scan_is_built_and_refuses_bad_tables():
    """The dev install (README) compiles toklane._trie; TOKLANE_PURE_PYTHON=1 turns it off. The scan
    bounds-checks its tables, whatever they hold."""
    assert streammatch.NATIVE, "toklane._trie did not build: is a C compiler installed? (pip install -e . builds it)"
    from toklane._trie import find_all

    auto = Automaton(["<a>", "<b"])
    nodes, edges, leads = auto._tables
    assert leads == (ord("<"),)
    assert find_all("x<a><b", nodes, edges, leads) == [(0, 1, 4), (1, 4, 6)]
    assert find_all(b"x<a><b", nodes, edges, leads) == [(0, 1, 4), (1, 4, 6)]
    assert find_all("x<a><b", nodes, edges, ()) == [(0, 1, 4), (1, 4, 6)]  # every position tried
    with pytest.raises(ValueError, match="bounds"):
        find_all("<a>", nodes, edges[:8], leads)  # a node's edges past the edge table
    with pytest.raises(ValueError, match="bounds"):
        find_all("<a>", nodes[:12], edges, leads)  # a child past the node table
    with pytest.raises(TypeError):
        find_all("<a>", nodes + b"x", edges, leads)
    with pytest.raises(TypeError):
        find_all(["<a>"], nodes, edges, leads)
    with pytest.raises(TypeError):
        find_all("<a>", nodes, edges, tuple(range(9)))  # more leads than the scan keeps
    # split_plain runs the same checked scan (its reading: tests/parsing/test_plain_split.py)
    from toklane._trie import split_plain

    roles = bytes([1, 2])

    def cut(roles: bytes, in_reasoning: bool, text: str, *ids: list[int]) -> Any:
        return split_plain(nodes, edges, leads, roles, in_reasoning, True, lambda *parts: parts, text, *ids)

    assert cut(roles, False, " <a> x<b y") == ("x", "y", [])
    assert cut(roles, False, " <a> x<b ") == ("x", None, [])  # (an empty part: None)
    assert cut(roles, False, "x y") == (None, "x y", [])
    assert cut(bytes([1]), True, "x<b y") is None  # (a pattern past the roles: any other)
    # read from ids: the hits must be the marker ids, each where it was put and as its own pattern
    assert cut(roles, False, " <a> x<b y", [1, 6], [0, 1]) == ("x", "y", [])
    assert cut(roles, False, " <a> x<b y", [0, 6], [0, 1]) is None
    assert cut(roles, False, " <a> x<b y", [1, 6], [1, 1]) is None
    assert cut(roles, False, " <a> x<b y", [6], [1]) is None  # (a spelled marker)
    with pytest.raises(ValueError, match="split_plain: an edge"):
        split_plain(nodes, edges[:8], leads, roles, True, True, tuple, "<a>")
    with pytest.raises(TypeError):
        split_plain(nodes, edges, leads, roles, True, True, tuple, b"<a>")  # (a str only)
    with pytest.raises(TypeError):
        split_plain(nodes, edges, leads, "12", True, True, tuple, "<a>")
    with pytest.raises(TypeError):
        split_plain(nodes, edges, leads, roles, True, True, None, "<a>")  # (make: a callable)
    code = "from toklane import streammatch; print(streammatch.NATIVE)"
    env = {**os.environ, "TOKLANE_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def naive_literals(strings, text):
    """Leftmost start, the longest string there, then on after it: (index of its first copy, start, end)."""
    out, i = [], 0
    while i < len(text):
        here = [s for s in strings if text.startswith(s, i)]
        if here:
            best = max(here, key=len)
            out.append((strings.index(best), i, i + len(best)))
            i += len(best)
        else:
            i += 1
    return out


@settings(max_examples=examples(500), deadline=None)
@given(
    strings=st.lists(st.text(alphabet=_SYMBOLS, min_size=1, max_size=5), min_size=1, max_size=10),
    text=st.text(alphabet=[*_SYMBOLS, "x"], max_size=60),
)
def test_literals_find_the_longest_at_the_leftmost_start(strings, text):
    """Literals (added tokens in a text): the compiled scan and the regex both equal the naive
    reference, with one string inside another, prefixes of each other, duplicates, many first
    symbols (over the scan's 8 jump targets: every position tried) and every str kind."""
    lits = Literals(strings)
    expected = naive_literals(strings, text)
    assert lits.find_all(text) == expected
    assert lits._find_all_by_regex(text) == expected


@settings(max_examples=examples(200), deadline=None)
@given(
    strings=st.lists(st.text(alphabet=_SYMBOLS, min_size=1, max_size=5), min_size=1, max_size=10, unique=True),
    other=st.lists(st.text(alphabet=_SYMBOLS, min_size=1, max_size=5), min_size=1, max_size=10, unique=True),
    text=st.text(alphabet=[*_SYMBOLS, "x"], max_size=60),
)
def test_literals_use_the_tables_a_source_gives_where_they_fit(strings, other, text):
    """A source of tables (a cache) is asked once, with the maker; what it gives is used where it fits
    the strings (made for them) and never where it reports a pattern they do not have (made for more
    strings: then the tables are made here). Either way the scan equals the naive reference."""
    expected = naive_literals(strings, text)
    asked = []

    def source(make):
        asked.append(make)
        return make()

    lits = Literals(strings, tables=source)
    assert lits.find_all(text) == expected and lits.find_all(text) == expected and len(asked) == 1
    foreign = Literals([*strings, *other]).make_tables()
    assert Literals(strings).fits(Literals(strings).make_tables())
    assert Literals(strings, tables=lambda make: foreign).find_all(text) == expected
    assert not Literals(strings).fits((b"\x00" * 5, b"", ()))


@pytest.mark.skipif(streammatch._native_find_all is None, reason="the compiled scan is not built")
def test_a_tokenizers_added_token_tables_load_from_the_disk_cache(tmp_path, monkeypatch):
    """DeepSeek-V4's ~800 added tokens: their scan tables are kept in the disk cache and a later load
    reads them (not made again), with the same matches."""
    from toklane.tokenizer.engines import base

    monkeypatch.setenv("TOKLANE_CACHE_DIR", str(tmp_path))
    strings = [f"<|token_{k}|>" for k in range(base._CACHED_TRIE_FROM)] + ["<think>", "</think>"]
    text = "a <think>b</think> <|token_7|> <|token_70|> <|token_63|>"
    first = base._literals(strings)
    assert first is not None and first.find_all(text)

    def not_made(*args):
        raise AssertionError("the tables were made again")

    monkeypatch.setattr(streammatch, "_trie_tables", not_made)
    second = base._literals(strings)
    assert second is not None and second.find_all(text) == first.find_all(text)
