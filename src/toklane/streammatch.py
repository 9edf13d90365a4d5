"""Streaming multi-pattern matching (Aho-Corasick) over text or bytes.

One matcher serves every component that watches a stream for fixed strings:
stop strings, reasoning/tool-call markers matched as text, and markers made of
ordinary tokens matched on the tokens' bytes (``</think>`` in cl100k/Llama-3 is
``" </" "think" ">\\n"`` or ``".</" "think" ">The"``; feeding token bytes
through one automaton finds it at every split).

The automaton is a DFA built once per pattern set (share it between requests
via :class:`Automaton`); each stream keeps only its current state, so feeding
costs O(new symbols) and never looks back. In the root state the scan jumps
with a compiled search to the next symbol that can start a pattern, so text
with few marker-like characters is skipped at C speed.

Long chunks are scanned by a trie walk instead (:meth:`StreamMatcher.find_all`):
at each position, the patterns' trie along the text; a pattern completed is a
match, and the scan goes on after it. It finds exactly the matches the DFA
finds -- earliest end, longest among those ending there -- whenever no pattern
lies strictly inside another (touching neither of its ends), which
:class:`Automaton` checks once; otherwise the DFA is used. The walk is compiled
(``toklane._trie``, one call per text; built by ``setup.py`` where a C compiler
is present); without it, one compiled regular expression (the trie as nested
alternations) does it, jumping between occurrences of a shared first symbol.
"""

from __future__ import annotations

import functools
import re
import struct
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .switches import pure_python

#: The C scan's tables of a :class:`Literals`: nodes, edges (``toklane._trie``'s layout), leads.
TrieTables = tuple[bytes, bytes, tuple[int, ...]]

S = TypeVar("S", str, bytes)

try:  # the compiled scan (setup.py builds it where a C compiler is present)
    if pure_python():
        raise ImportError("TOKLANE_PURE_PYTHON is set")
    from ._trie import find_all as _native_find_all
    from ._trie import split_plain as _native_split_plain
except ImportError:
    _native_find_all = _native_split_plain = None

#: Whether :meth:`Automaton.find_all` runs the compiled scan (``toklane._trie``).
NATIVE = _native_find_all is not None

#: find_all leaves jumping between a lead symbol's occurrences for one compiled scan once more than
#: one occurrence per this many symbols read is no match (each costs a Python step; the compiled
#: scan costs well under one per this many symbols).
_SPARSE = 256


@dataclass(frozen=True, slots=True)
class Match:
    """A completed pattern: ``pattern`` is its index; ``end`` is the position just
    past it in the chunk that completed it. It started ``length`` symbols
    earlier, possibly in an earlier chunk (``end - length`` < 0)."""

    pattern: int
    end: int
    length: int

    @property
    def start(self) -> int:
        return self.end - self.length


class Automaton(Generic[S]):
    """Immutable Aho-Corasick DFA over a set of patterns (all ``str`` or all ``bytes``)."""

    def __init__(self, patterns: Sequence[S]):
        if not patterns:
            raise ValueError("a matcher needs at least one pattern")
        kinds = {type(p) for p in patterns}
        if len(kinds) != 1 or not kinds <= {str, bytes}:
            raise TypeError("patterns must be all str or all bytes")
        if any(len(p) == 0 for p in patterns):
            raise ValueError("patterns must be non-empty")
        self.patterns: tuple[S, ...] = tuple(patterns)
        self.is_bytes = isinstance(patterns[0], bytes)
        goto: list[dict[Hashable, int]] = [{}]
        depth = [0]
        out: list[int] = [-1]  # longest pattern ending exactly at this state
        for index, pattern in enumerate(self.patterns):
            state = 0
            for symbol in pattern:
                nxt = goto[state].get(symbol)
                if nxt is None:
                    nxt = len(goto)
                    goto[state][symbol] = nxt
                    goto.append({})
                    depth.append(depth[state] + 1)
                    out.append(-1)
                state = nxt
            if out[state] == -1:
                out[state] = index
        # Breadth-first: failure links, then full DFA rows (missing symbol -> root).
        fail = [0] * len(goto)
        delta: list[dict[Hashable, int]] = [dict() for _ in goto]
        delta[0] = dict(goto[0])
        queue = deque(goto[0].values())
        while queue:
            state = queue.popleft()
            row = dict(delta[fail[state]])
            for symbol, nxt in goto[state].items():
                fail[nxt] = delta[fail[state]].get(symbol, 0) if state else 0
                row[symbol] = nxt
                queue.append(nxt)
            delta[state] = row
            if out[state] == -1 and out[fail[state]] != -1:
                out[state] = out[fail[state]]
        self._delta = delta
        self._depth = depth
        self._out = out
        self._lengths = [len(p) for p in self.patterns]
        self._longest = max(self._lengths)
        self._index = {}
        for index, p in enumerate(self.patterns):
            self._index.setdefault(p, index)
        firsts = {p[0] for p in self.patterns}
        # The first symbol of every pattern, when they share it: find_all's jump target.
        self._lead: S | None = self.patterns[0][:1] if len(firsts) == 1 else None
        self._scan: re.Pattern[Any] | None = None
        self._tables: tuple[bytes, bytes, tuple[int, ...]] | None = None
        if _regex_exact(self.patterns, delta, out):
            trie = _trie(self.patterns)
            self._scan = _trie_regex(trie, self.is_bytes)
            if _native_find_all is not None:
                self._tables = (*_trie_tables(trie, self._index), _leads(firsts))
        if self.is_bytes:
            self._skip: re.Pattern[bytes] | re.Pattern[str] = re.compile(
                b"[" + b"".join(re.escape(bytes([b])) for b in sorted(firsts)) + b"]"  # type: ignore[arg-type]
            )
        else:
            self._skip = re.compile("[" + "".join(re.escape(c) for c in sorted(firsts)) + "]")  # type: ignore[arg-type]

    def split_plain(
        self, roles: bytes, in_reasoning: bool, may_open: bool, make: Callable[[Any, Any, list[Any]], Any]
    ) -> Callable[..., Any] | None:
        """The compiled cut of a reasoning-only output of a usual shape, bound to these patterns
        (``roles``: each pattern's, 1 a reasoning start marker, 2 its end marker, 0 any other):
        ``cut(text)`` is ``make(reasoning, content, [])`` -- ``[start marker] reasoning end-marker
        content``, stripped as the parsers strip them, an empty part None (content alone where the
        output starts outside reasoning; no content where it is cut short) -- or None where the
        output holds anything else; ``cut(text, starts, patterns)`` for a text read from token ids,
        whose markers must be exactly its marker ids (``starts``, ``patterns``: where each one's
        text is and which pattern it is). None where the scan is not compiled or not exact for
        these patterns. See ``ThinkToolsParser._whole_plain``, whose result it is."""
        tables = self._tables
        if tables is None or _native_split_plain is None or self.is_bytes:
            return None
        return functools.partial(_native_split_plain, *tables, roles, in_reasoning, may_open, make)

    def may_start(self, text: S) -> bool:
        """Whether some pattern's first symbol is in ``text`` (one C-speed scan)."""
        return self._skip.search(text) is not None  # type: ignore[arg-type]

    def find_all(self, text: S) -> list[tuple[int, int, int]] | None:
        """Every match in a whole ``text`` as ``(pattern, start, end)`` -- what a matcher fed
        ``text`` alone reports -- by the compiled scan; None when that scan is not exact for these
        patterns (use a matcher)."""
        tables = self._tables
        if tables is not None:
            return _native_find_all(text, *tables)  # type: ignore[misc]
        return self._find_all_in_python(text)

    def _find_all_in_python(self, text: S) -> list[tuple[int, int, int]] | None:
        """:meth:`find_all` without the C scan (where it is not built): the trie regex."""
        scan = self._scan
        if scan is None:
            return None
        index = self._index
        lead = self._lead
        if lead is None:
            return [(index[m.group()], *m.span()) for m in scan.finditer(text)]  # type: ignore[arg-type]
        # Every pattern starts with `lead`: jump between its occurrences with str/bytes.find (memchr,
        # far faster than the pattern's own search) and try the pattern at each -- the matches
        # finditer finds. Where `lead` turns out common (over one non-match per _SPARSE symbols read),
        # one finditer reads the rest.
        hits: list[tuple[int, int, int]] = []
        find, match = text.find, scan.match
        i = find(lead)  # type: ignore[arg-type]
        misses = 0
        while i >= 0:
            m = match(text, i)  # type: ignore[arg-type]
            if m is not None:
                end = m.end()
                hits.append((index[m.group()], i, end))  # type: ignore[index]
                i = find(lead, end)  # type: ignore[arg-type]
                continue
            misses += 1
            if misses > 4 + i // _SPARSE:
                hits += [(index[m.group()], *m.span()) for m in scan.finditer(text, i + 1)]  # type: ignore[arg-type, index]
                return hits
            i = find(lead, i + 1)  # type: ignore[arg-type]
        return hits

    def matcher(self) -> StreamMatcher[S]:
        """A fresh per-stream matcher sharing this automaton."""
        return StreamMatcher(self)


class StreamMatcher(Generic[S]):
    """Per-stream state over a shared :class:`Automaton`.

    ``search(chunk)`` advances over the chunk and stops at the first pattern
    completed (earliest end; the longest pattern among those ending there),
    so a caller can react -- switch matchers, cut the text -- and resume from
    ``match.end``. After a match the state restarts (matches never overlap).
    """

    __slots__ = ("_auto", "_state")

    def __init__(self, automaton: Automaton[S] | Sequence[S]):
        self._auto: Automaton[S] = automaton if isinstance(automaton, Automaton) else Automaton(automaton)
        self._state = 0

    @property
    def automaton(self) -> Automaton[S]:
        return self._auto

    @property
    def partial(self) -> int:
        """How many of the last symbols fed are a proper prefix of some pattern:
        text that must be held back because a match may still complete."""
        return self._auto._depth[self._state]

    def reset(self) -> None:
        self._state = 0

    def passes(self, chunk: S) -> bool:
        """Whether ``chunk`` reads as plain text: no pattern is pending and none starts in it (one
        C-speed scan for the patterns' first symbols). The state is unchanged either way."""
        return not self._state and not self._auto.may_start(chunk)

    def find_all(self, chunk: S, final: bool = False) -> list[tuple[int, int, int]] | None:
        """Every match in ``chunk`` as ``(pattern, start, end)``, the state left as :meth:`search`
        would leave it after the chunk (``partial`` counts the held tail) -- or ``None`` (nothing
        read) when this automaton cannot be scanned by its compiled pattern or the matcher is inside
        a pattern (``partial`` > 0: prepend the held text and :meth:`reset` first). ``final``: the
        chunk ends the stream (the state is not computed: nothing follows)."""
        auto = self._auto
        if self._state:
            return None
        hits = auto.find_all(chunk)
        if hits is None:
            return None
        # The held tail: no pattern starts after the last match and completes in the chunk, so the DFA
        # run over the last (longest - 1) symbols from the root ends in the state of the whole chunk.
        if final:
            return hits
        start = max(hits[-1][2] if hits else 0, len(chunk) - auto._longest + 1)
        if start < len(chunk):
            self.search(chunk, start)
        return hits

    def search(self, chunk: S, start: int = 0) -> Match | None:
        auto = self._auto
        delta, out, skip = auto._delta, auto._out, auto._skip
        state = self._state
        i = start
        n = len(chunk)
        while i < n:
            if state == 0:
                m = skip.search(chunk, i)  # type: ignore[arg-type]
                if m is None:
                    break
                i = m.start()
            state = delta[state].get(chunk[i], 0)
            i += 1
            hit = out[state]
            if hit != -1:
                self._state = 0
                return Match(hit, i, auto._lengths[hit])
        self._state = state
        return None


class Literals:
    """Fixed strings found in a whole text as a trie-shaped regex's ``search`` finds them: at the
    leftmost position where one starts, the longest there, then on after it. ``find_all(text)``:
    ``[(index, start, end), ...]`` (``index`` into :attr:`strings`). One compiled pass
    (``toklane._trie``) where built, its tables made on first use (a tokenizer's load builds some it
    may never use); the regex otherwise (compiled on first use too). ``lead``: the first character every
    string shares (a text without it holds none of them: a caller's test far cheaper than a search), else None."""

    __slots__ = ("_index", "_pattern", "_source", "_tables", "lead", "strings")

    def __init__(self, strings: Sequence[str], tables: Callable[[Callable[[], TrieTables]], TrieTables] | None = None):
        """``tables``: where the C scan's tables come from on first use, given the function that makes
        them (:meth:`make_tables`): a cache of them (making them for a tokenizer's hundreds of added tokens
        is a cost of its load);
        what it gives is used where it fits these strings (:meth:`fits`), else they are made."""
        if not strings or any(not s for s in strings):
            raise ValueError("Literals needs non-empty strings")
        self.strings = tuple(strings)
        firsts = {s[0] for s in self.strings}
        self.lead = firsts.pop() if len(firsts) == 1 else None
        self._index: dict[str, int] = {}
        for k, s in enumerate(self.strings):
            self._index.setdefault(s, k)
        self._pattern: re.Pattern[str] | None = None
        self._source = tables
        self._tables: TrieTables | None = None  # (made on first use)

    def make_tables(self) -> TrieTables:
        """The C scan's tables over these strings: (nodes, edges, leads)."""
        trie = _trie(self.strings, longest=True)
        return (*_trie_tables(trie, self._index), _leads({s[0] for s in self.strings}))

    def fits(self, tables: TrieTables) -> bool:
        """Whether ``tables`` can be these strings' (their layout holds and each pattern they report is
        one of them; the C scan bounds-checks the rest)."""
        nodes, edges, leads = tables
        if len(nodes) % _NODE.size or len(edges) % _EDGE.size or not nodes:
            return False
        reported = memoryview(nodes).cast("i")[2 :: _NODE.size // 4]
        return max(reported) < len(self.strings) and all(type(c) is int for c in leads)

    def _made_tables(self) -> TrieTables:
        if self._source is not None:
            tables = self._source(self.make_tables)
            if self.fits(tables):
                return tables
        return self.make_tables()

    def find_all(self, text: str) -> list[tuple[int, int, int]]:
        if _native_find_all is None:
            return self._find_all_by_regex(text)
        tables = self._tables
        if tables is None:  # (made at most twice under a race, identically)
            tables = self._tables = self._made_tables()
        return _native_find_all(text, *tables)

    def _find_all_by_regex(self, text: str) -> list[tuple[int, int, int]]:
        """:meth:`find_all` without the C scan."""
        if self._pattern is None:  # (built at most twice under a race, identically)
            self._pattern = _trie_regex(_trie(self.strings, longest=True), False)
        index = self._index
        return [(index[m.group()], *m.span()) for m in self._pattern.finditer(text)]


def _regex_exact(patterns: Sequence[str] | Sequence[bytes], delta: list[dict[Hashable, int]], out: list[int]) -> bool:
    """Whether a leftmost-shortest regex scan finds the DFA's matches: no pattern lies strictly
    inside another (an occurrence touching neither end). A prefix ends first in both; a suffix
    starts last in both. Found by running the DFA over each pattern less its first and last
    symbol (``out`` of a state: a pattern ending there, -1 if none): linear in the patterns'
    total length (a pairwise search is quadratic in the number of patterns, slow for DeepSeek's ~800
    special tokens)."""
    for q in patterns:
        state = 0
        for symbol in q[1:-1]:
            state = delta[state].get(symbol, 0)
            if out[state] != -1:
                return False
    return True


def _trie(patterns: Sequence[str] | Sequence[bytes], longest: bool = False) -> dict[Any, Any]:
    """The patterns as a trie of dicts (symbol -> child, ``_END`` -> the pattern that completes at a
    node). By default a terminal node ends its branch (the DFA reports a pattern as soon as it
    completes, so a longer one through it is never reported); ``longest`` keeps every pattern."""
    root: dict[Any, Any] = {}
    for p in patterns:
        node = root
        for symbol in p:
            if _END in node and not longest:
                break  # a shorter pattern completes first: this one is never reported
            node = node.setdefault(symbol, {})
        else:
            if not longest:
                node.clear()
            node.setdefault(_END, p)
    return root


_END = object()


def _trie_regex(root: dict[Any, Any], is_bytes: bool) -> re.Pattern[Any]:
    """One compiled pattern matching, at the leftmost start, the pattern the trie of :func:`_trie`
    leads to (the shortest, or with ``longest`` the longest): the trie as nested alternations, a
    node's children before its own end."""

    def emit(node: dict[Any, Any]) -> str:
        alts = [re.escape(chr(c) if is_bytes else c) + emit(child) for c, child in node.items() if c is not _END]
        if alts and _END in node:
            return "(?:" + "|".join(alts) + "|)"
        if len(alts) == 1:
            return alts[0]
        return "(?:" + "|".join(alts) + ")" if alts else ""

    source = emit(root)
    return re.compile(source.encode("latin-1") if is_bytes else source)


#: The C scan's tables (toklane._trie): a node is (first edge, edge count, pattern or -1), an edge
#: (symbol, child); native byte order, as its Node and Edge structs.
_NODE = struct.Struct("=IIi")
_EDGE = struct.Struct("=II")


def _leads(firsts: set[Any]) -> tuple[int, ...]:
    """The C scan's jump targets: the symbols patterns start with, or () (try every position) where
    there are more than it keeps."""
    return tuple(sorted(c if type(c) is int else ord(c) for c in firsts)) if len(firsts) <= _MAX_LEADS else ()


_MAX_LEADS = 8  # (toklane._trie's MAX_LEADS)


def _trie_tables(root: dict[Any, Any], index: dict[Any, int]) -> tuple[bytes, bytes]:
    """The trie of :func:`_trie` as the C scan reads it: nodes numbered breadth-first from the
    root, each node's children contiguous and sorted by symbol (code point or byte)."""
    order = [root]
    nodes: list[bytes] = []
    edges: list[bytes] = []
    for node in order:  # (grows as children are numbered)
        kids = sorted(((c if type(c) is int else ord(c)), child) for c, child in node.items() if c is not _END)
        nodes.append(_NODE.pack(len(edges), len(kids), index[node[_END]] if _END in node else -1))
        for symbol, child in kids:
            edges.append(_EDGE.pack(symbol, len(order)))
            order.append(child)
    return b"".join(nodes), b"".join(edges)
