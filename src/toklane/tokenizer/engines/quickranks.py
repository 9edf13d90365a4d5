"""quicktok over a ranks table it does not bundle (Qwen3.5/3.6, Mistral tekken).

quicktok has no general regex engine: it compiles each pre-tokenisation grammar
by hand, as a *scanner* (``cl100k``, ``o200k``, ``llama3``, ``qwen``,
``tekken``), and reads an encoding (ranks, specials, scanner name, id offset)
from a data folder. :func:`quicktok_from_ranks` writes the ranks in its format to
a private temporary folder, loads them (quicktok reads everything into memory
at construction) and removes the folder: nothing outside the installed packages
is read, nothing is left behind, nothing is downloaded.

A scanner is used only where the pattern is *exactly* the one it compiles
(:data:`SCANNERS`); the ids are then those of tiktoken over the same pattern
and ranks (tested on corpora, hypothesis text and every code point).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import struct
import tempfile
import threading
import unicodedata
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ...switches import pure_python
from .. import patterns
from ..irregular import Irregular
from ..patterns import TEKKEN
from ..pieces import PARALLEL_MIN, WHITESPACE, batch_runs

try:  # the compiled scan of the characters to check (else numpy, same positions)
    from ... import _bpe  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - built by the dev install
    _bpe = None
if pure_python():
    _bpe = None


#: Pre-tokenisation pattern -> the quicktok scanner that implements it exactly.
SCANNERS = {
    patterns.QWEN2: "qwen",
    patterns.LLAMA3: "llama3",
    patterns.O200K: "o200k",
    TEKKEN: "tekken",
}

_pools: dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def _forget_pools() -> None:
    """A forked child has none of its parent's threads: it starts its own pool."""
    global _pools_lock
    _pools.clear()
    _pools_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools)


def _pool(threads: int) -> ThreadPoolExecutor:
    """One shared pool of ``threads`` workers (their engine calls release the GIL)."""
    with _pools_lock:
        pool = _pools.get(threads)
        if pool is None:
            pool = _pools[threads] = ThreadPoolExecutor(threads, thread_name_prefix="toklane-encode")
        return pool


def encode_parts(texts: list[str], threads: int, encode: Callable[[str], Any]) -> list[list[Any]]:
    """``encode`` of every part of ``texts`` (:func:`.pieces.batch_runs`: long texts cut at
    pre-token boundaries, runs of parts), on the shared pool, each core slicing its own parts (no
    copies made one after another on the caller's thread): per text, its parts' results in order.
    No task waits on another, so the pool never deadlocks on itself."""
    runs, owners = batch_runs(texts, threads)
    per_text: list[list[Any]] = [[] for _ in texts]
    done = _pool(threads).map(lambda run: [encode(text[a:b]) for text, a, b in run], runs)
    for k, result in zip(owners, (r for run in done for r in run), strict=True):
        per_text[k].append(result)
    return per_text


_SURROGATE = re.compile("[\ud800-\udfff]")

# quicktok's engine packs ids in 18 bits and token lengths in 16.
_MAX_ID = (1 << 18) - 1
_MAX_TOKEN_BYTES = (1 << 16) - 1


def available() -> bool:
    return importlib.util.find_spec("quicktok") is not None


def _tables(scanner: str, nfc: bool) -> list[str]:
    tables = ["uniclass_o200k.bin"] if scanner in ("o200k", "tekken") else ["uniclass.bin"]
    return [*tables, "nfc.bin"] if nfc else tables


def _packed_vocab(ranks: dict[bytes, int], offset: int, hidden: frozenset[int]) -> bytes | None:
    """The ranks in quicktok's ``.vocab`` layout -- a ``u32`` count, then per id in order a
    ``u16`` length, the bytes and the ``u32`` id less ``offset`` -- built with numpy (most
    of the time ordering them; a Python loop was several times slower, on every load).
    ``None`` where the ids are not exactly ``offset..offset+N-1`` or a token starts with
    ``FF FF`` while ``hidden`` is set."""
    import numpy as np

    n = len(ranks)
    tokens = list(ranks)
    ids = np.fromiter(ranks.values(), dtype=np.int64, count=n)
    order = np.argsort(ids, kind="stable")
    if not np.array_equal(ids[order], np.arange(offset, offset + n)):
        return None
    datas = [tokens[i] for i in order.tolist()]
    if hidden:
        if any(data.startswith(b"\xff\xff") for data in datas):
            return None
        for rank in hidden:
            datas[rank - offset] = b"\xff\xff" + rank.to_bytes(3, "big")
    lengths = np.fromiter(map(len, datas), dtype=np.int64, count=n)
    starts = np.empty(n, dtype=np.int64)  # where each record starts: after the count, 6 bytes + its token apart
    starts[0] = 4
    np.cumsum(lengths[:-1] + 6, out=starts[1:])
    starts[1:] += 4
    out = np.empty(4 + 6 * n + int(lengths.sum()), dtype=np.uint8)
    out[:4] = np.frombuffer(struct.pack("<I", n), dtype=np.uint8)
    out[starts] = lengths & 0xFF
    out[starts + 1] = lengths >> 8
    blob = np.frombuffer(b"".join(datas), dtype=np.uint8)
    before = np.cumsum(lengths) - lengths  # bytes of the tokens before each one
    out[np.repeat(starts + 2 - before, lengths) + np.arange(len(blob))] = blob
    rank_bytes = np.arange(n, dtype="<u4").view(np.uint8).reshape(n, 4)
    out[(starts + 2 + lengths)[:, None] + np.arange(4)] = rank_bytes
    return out.tobytes()


def quicktok_from_ranks(
    ranks: dict[bytes, int], pattern: str, *, offset: int = 0, nfc: bool = False, hidden: Collection[int] = ()
) -> Any | None:
    """A ``quicktok.Tokenizer`` encoding like tiktoken over ``pattern`` and ``ranks``
    (``bytes -> id``, ids ``offset..offset+N-1`` as tiktoken takes them), or
    ``None`` when quicktok is not installed, has no scanner for ``pattern`` or
    cannot hold the ranks. The ``hidden`` ids keep their place but not their
    bytes (``FF FF`` and the id: no UTF-8 text holds them), so they are never
    emitted; :class:`~.backends.QuicktokEngine` decodes them from their own bytes."""
    scanner = SCANNERS.get(pattern)
    if scanner is None or not available() or not ranks:
        return None
    if offset < 0 or offset + len(ranks) - 1 > _MAX_ID or max(map(len, ranks)) > _MAX_TOKEN_BYTES:
        return None
    import quicktok

    vocab = _packed_vocab(ranks, offset, frozenset(hidden))
    if vocab is None:
        return None
    bundled = Path(quicktok.__file__).parent / "data"
    folder = tempfile.mkdtemp(prefix="toklane-quicktok-")
    try:
        name = "ranks"
        with open(os.path.join(folder, name + ".vocab"), "wb") as f:
            f.write(vocab)
        with open(os.path.join(folder, name + ".special"), "wb") as f:
            f.write(struct.pack("<I", 0))  # added tokens are matched by RankedBPEBackend
        with open(os.path.join(folder, name + ".enc"), "w", encoding="ascii") as f:
            f.write(f"scanner={scanner}\n")
            if nfc:
                f.write("nfc=1\n")
            if offset:
                f.write(f"id_offset={offset}\n")
        for table in _tables(scanner, nfc):
            shutil.copyfile(bundled / table, os.path.join(folder, table))
        return quicktok.Tokenizer(name, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# --------------------------------------------------------------------------- checked engine


def _scan(pattern: str) -> Any:
    """``table[code point]``: whether tiktoken's regex engine matches it with
    ``pattern`` (a class), in that engine's Unicode version. Found by running
    the engine once over every code point from U+0300."""
    import numpy as np
    import tiktoken

    points = np.concatenate((np.arange(0x300, 0xD800), np.arange(0xE000, 0x110000))).astype("<u4")
    text = points.tobytes().decode("utf-32-le")
    byte_ranks = {bytes([b]): b for b in range(256)}
    finder = tiktoken.Encoding("scan", pat_str=pattern, mergeable_ranks=byte_ranks, special_tokens={})
    found = finder.decode_bytes(finder.encode_ordinary(text)).decode("utf-8")
    table = np.zeros(0x110000, dtype=bool)
    table[np.frombuffer(found.encode("utf-32-le"), dtype="<u4")] = True
    return table


_class_tables: dict[str, Any] = {}
_tables_lock = threading.Lock()


def mark_table() -> Any:
    r"""Combining marks (``\p{M}``) as tiktoken reads them (it knows marks that
    Python 3.11's tables do not)."""
    with _tables_lock:
        if "marks" not in _class_tables:
            _class_tables["marks"] = _scan(r"\p{M}+")
        return _class_tables["marks"]


def newer_table() -> Any:
    """Code points Python's Unicode tables leave unassigned: characters newer
    than some engine's tables, which engines may class differently (quicktok
    reads Unicode 17's Tolong Siki digits U+11DE0.. as digits, tiktoken's regex
    as punctuation). Characters assigned in Python's tables are classed alike
    by quicktok and tiktoken (tested on every code point). Found as tiktoken's
    unassigned ones plus those it knows that Python does not (once)."""
    import numpy as np

    with _tables_lock:
        if "newer" not in _class_tables:
            assigned = _scan(r"[^\p{Cn}\p{Co}]")
            newer = ~assigned
            newer[:0x300] = False
            newer[0xD800:0xF900] = False  # surrogates; private use (fixed ranges, stable by policy)
            newer[0xF0000:0xFFFFE] = False
            newer[0x100000:0x10FFFE] = False
            known = np.flatnonzero(assigned).tolist()
            newer[[c for c in known if unicodedata.category(chr(c)) == "Cn"]] = True
            _class_tables["newer"] = newer
        return _class_tables["newer"]


def nfc_table() -> Any:
    """Code points that NFC changes (singletons, composition exclusions such as
    U+0958 -> U+0915 U+093C, a letter and a mark): their words are normalised
    here and go to tiktoken, so no scanner reads a mark NFC made."""
    import numpy as np

    with _tables_lock:
        if "nfc" not in _class_tables:
            table = np.zeros(0x110000, dtype=bool)
            changed = [
                c
                for c in range(0xC0, 0x30000)
                if unicodedata.decomposition(chr(c)) and unicodedata.normalize("NFC", chr(c)) != chr(c)
            ]
            table[changed] = True
            _class_tables["nfc"] = table
        return _class_tables["nfc"]


# Hangul conjoining jamo: NFC composes them into syllables.
_JAMO = [*range(0x1100, 0x1200), *range(0xA960, 0xA980), *range(0xD7B0, 0xD800)]


def _whitespace_table() -> Any:
    import numpy as np

    from ..pieces import WHITESPACE

    table = np.zeros(0x110000, dtype=bool)
    table[[ord(c) for c in WHITESPACE]] = True
    return table


# An irregular token's text (:mod:`.irregular`) is looked for where the hash of three
# characters is that of its anchor's first three (a table of 2**21 flags, exact for ASCII),
# then where the hash of its anchor's characters is (2**20 flags), then compared whole.
_PREFIX_BITS = 21
_NEEDLE_BITS = 20
_NEEDLE_FACTORS = (0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D, 0x27D4EB2F)


def _prefix_hashes(points: Any) -> Any:
    """The hash of each three adjacent characters of ``points`` (code points)."""
    import numpy as np

    wide = points.astype(np.uint32)
    mixed = (wide[:-2] << np.uint32(14)) ^ (wide[1:-1] << np.uint32(7)) ^ wide[2:]
    return mixed & np.uint32((1 << _PREFIX_BITS) - 1)


def _needle_hashes(windows: Any, n: int) -> Any:
    """The hash of the first ``n`` code points of each row of ``windows`` (an array of shape
    ``(k, >= n)``)."""
    import numpy as np

    hashes = windows[:, 0] * np.uint32(_NEEDLE_FACTORS[0])
    for k in range(1, n):
        hashes ^= windows[:, k] * np.uint32(_NEEDLE_FACTORS[k])
    return hashes >> np.uint32(32 - _NEEDLE_BITS)


def _windows(points: Any, at: Any) -> Any:
    """The four code points of ``points`` from each index of ``at`` (0 past the end), as rows."""
    import numpy as np

    padded = np.concatenate((points.astype(np.uint32), np.zeros(4, dtype=np.uint32)))
    return padded[at[:, None] + np.arange(4)]


# A batch is checked and encoded text by text on all cores from this many characters, where its
# texts hold this many on average (CheckedEngine._on_all_cores).
_BATCH_ON_ALL_CORES = 1 << 15
_TEXT_ON_ALL_CORES = 1 << 10

# Up to this many characters to check, their words are found in the string.
_FEW_HITS = 64
_WHITESPACE = frozenset(WHITESPACE)

# Words to check at most this many characters apart are encoded in one tiktoken
# call: fewer calls on text where marks are frequent (Devanagari, Thai, emoji
# with variation selectors).
_JOIN_GAP = 32


class CheckedEngine:
    r"""quicktok, exact: tiktoken (over the real pattern and the same ranks) for
    the words that hold a character quicktok's scanner may read differently.

    * Qwen3.5 / Qwen3.6 (``marks=True``): their pattern
      (:data:`~toklane.tokenizer.patterns.QWEN3_5`) is Qwen2's with combining
      marks (``\p{M}``) joined to letters and left out of punctuation runs; on
      text without a mark the two split identically, and quicktok has a scanner
      for Qwen2's.
    * Every quicktok engine: characters newer than Python's Unicode tables
      (:func:`newer_table`), where quicktok's tables and tiktoken's may differ.

    ASCII text goes straight to quicktok, other text after one vectorised table
    look-up. A word to check runs from a space after a non-whitespace character
    to the next such space, cuts where every supported pattern ends a pre-token
    (:mod:`.pieces`), so the pieces encode alone as in the whole text. With
    ``nfc`` (Qwen), quicktok normalises what it reads itself (its NFC tables;
    characters newer than Python's are checked words) and the words handed to
    tiktoken are normalised here: a space, and the start of a line after a
    newline, are normalisation boundaries (a starter that composes with nothing
    before it), so each piece normalises alone as inside the whole text. Text
    is checked before normalisation: a decomposed accent is a mark there, and
    its word goes to tiktoken, normalised -- slower, still exact. ``exact`` is built on first use when it
    is a function (the bundled quicktok encodings: a slow build, made once).
    """

    name = "quicktok"

    def __init__(
        self, fast: Any, exact: Any, *, nfc: bool = False, marks: bool = False, irregular: Irregular | None = None
    ):
        """``irregular``: the vocabulary's irregular tokens (:mod:`.irregular`), which
        ``fast`` must not hold; the words that hold one go to tiktoken."""
        import numpy as np

        self._np = np
        self._fast = fast
        self._exact = exact
        self._exact_lock = threading.Lock()
        self._nfc = nfc
        self.irregular = irregular
        check = mark_table() | newer_table() if marks else newer_table().copy()
        if nfc:
            check |= nfc_table()
        # Needles are looked for in the text as given. Where NFC would change it, it holds
        # a mark, a character NFC changes or a conjoining jamo (they compose to syllables):
        # those words go to tiktoken. Without marks checked, NFC text is searched.
        self._normalize_first = bool(nfc and irregular and irregular.texts and not marks)
        if nfc and marks and irregular and irregular.texts:
            check[_JAMO] = True
        self._space = _whitespace_table()
        self.threads = getattr(fast, "threads", 1)
        self._ascii_needles = False  # whether ASCII text may hold an irregular token
        self._prefixes = np.zeros(1 << _PREFIX_BITS, dtype=bool)
        tables = {n: np.zeros(1 << _NEEDLE_BITS, dtype=bool) for n in (3, 4)}
        # Hash of an anchor -> (offset of the anchor, the whole text) to compare.
        self._wholes: dict[tuple[int, int], list[tuple[int, str]]] = {}
        self._short: dict[str, list[str]] = {}  # first character -> texts of two
        one = np.zeros(1, dtype=np.intp)
        for text, start in zip(irregular.texts, irregular.anchors, strict=True) if irregular else ():
            if len(text) == 1:
                check[ord(text)] = True
                continue
            if len(text) == 2:  # looked for where its first character stands
                self._short.setdefault(text[0], []).append(text)
                continue
            needle = text[start : start + 4]
            points = np.frombuffer(needle.encode("utf-32-le"), dtype="<u4")
            self._prefixes[_prefix_hashes(points[:3])] = True
            key = int(_needle_hashes(_windows(points, one), len(needle))[0])
            tables[len(needle)][key] = True
            self._wholes.setdefault((len(needle), key), []).append((start, text))
            self._ascii_needles |= text.isascii()
        self._needles = [(n, table) for n, table in tables.items() if table.any()]
        # flags[code point]: 1: its word goes to tiktoken; 2: a text of two characters starts with it.
        self._flags = check.astype(np.uint8)
        for first, texts in self._short.items():
            self._flags[ord(first)] |= 2
            self._ascii_needles |= any(map(str.isascii, texts))
        self._irregular = bool(self._needles or self._short)
        # A batch is searched as one text, joined by U+0000, where no irregular token holds it.
        self._joinable = self._irregular and not any("\x00" in text for text in irregular.texts)
        # Whether every flagged character is from U+0300 on (nothing below it to look at).
        self._flags_high = not self._flags[:0x300].any()
        # The tables as the compiled scan reads them.
        self._flag_bytes = self._flags.tobytes()
        self._prefix_bytes = self._prefixes.astype(np.uint8).tobytes() if self._needles else None

    def _exact_engine(self) -> Any:
        if callable(self._exact) and not hasattr(self._exact, "encode_ordinary"):
            with self._exact_lock:
                if callable(self._exact) and not hasattr(self._exact, "encode_ordinary"):
                    self._exact = self._exact()
        return self._exact

    def _normal(self, text: str) -> str:
        """NFC, where the reference normalises (the words handed to tiktoken)."""
        if self._nfc and not text.isascii() and not unicodedata.is_normalized("NFC", text):
            text = unicodedata.normalize("NFC", text)
        return text

    def _spans(self, text: str) -> tuple[str, list[tuple[int, int]]]:
        """``(text, spans)``: lone surrogates read as U+FFFD (as both engines do),
        and the merged ``[a, b)`` spans of the words to check."""
        text, points, hits = self._hits(text)
        if not hits.size:
            return text, []
        return text, self._words(text, points, hits)

    def _hits(self, text: str) -> tuple[str, Any, Any]:
        """``(text, code points or None, hits)``: the indices of the characters whose words go
        to tiktoken (and where irregular tokens' texts start). The code points are left out
        (None) where the compiled scan read the text."""
        np = self._np
        short: Any
        if text.isascii():  # only irregular tokens to look for
            points = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
            hits = np.zeros(0, dtype=np.intp)
            short = np.flatnonzero(np.take(self._flags, points) & 2) if self._short else ()
        else:
            if self._normalize_first and not unicodedata.is_normalized("NFC", text):
                text = unicodedata.normalize("NFC", text)  # look in the text quicktok reads
            if _bpe is not None:  # one pass without the GIL
                found = _bpe.flag_scan(self._flag_bytes, self._prefix_bytes, text)
                if found is None:  # a lone surrogate
                    text = _SURROGATE.sub("\ufffd", text)
                    found = _bpe.flag_scan(self._flag_bytes, self._prefix_bytes, text)
                points = None
                hits, short, at = (np.frombuffer(b, dtype=np.int64).astype(np.intp, copy=False) for b in found[:3])
                windows = np.frombuffer(found[3], dtype=np.uint32).reshape(-1, 4) if at.size else None
            else:
                text, hits, short, points = self._hits_by_numpy(text)
        if points is not None:  # (the compiled scan found the candidates itself)
            at = np.flatnonzero(np.take(self._prefixes, _prefix_hashes(points))) if self._needles else None
            windows = _windows(points, at) if at is not None and at.size else None
        if self._irregular:  # the words that hold an irregular token
            held = self._holding(text, at, windows) if windows is not None else []
            held += [i for i in np.asarray(short).tolist() for t in self._short[text[i]] if text.startswith(t, i)]
            if held:
                hits = np.concatenate((hits, np.array(held, dtype=np.intp)))
        return text, points, hits

    def _hits_by_numpy(self, text: str) -> tuple[str, Any, Any, Any]:
        """``(text, hits, shorts, code points)`` of a text that is not ASCII, without the
        compiled scan (lone surrogates read as U+FFFD)."""
        np = self._np
        try:
            data = text.encode("utf-32-le")
        except UnicodeEncodeError:
            text = _SURROGATE.sub("\ufffd", text)
            data = text.encode("utf-32-le")
        points = np.frombuffer(data, dtype="<u4")
        at = np.flatnonzero(points >= 0x300) if self._flags_high else np.arange(len(points))
        flags = np.take(self._flags, points[at])
        return text, at[(flags & 1) != 0], at[(flags & 2) != 0] if self._short else (), points

    def _words(self, text: str, points: Any, hits: Any) -> list[tuple[int, int]]:
        """The merged ``[a, b)`` spans of the words of ``hits`` (:meth:`_hits`)."""
        np = self._np
        if hits.size <= _FEW_HITS:
            spans = self._words_of(text, sorted(set(hits.tolist())))
            if spans is not None:
                return spans
        if points is None:
            points = np.frombuffer(text.encode("utf-32-le"), dtype="<u4")
        # Cuts: a space after a non-whitespace character.
        spaces = np.flatnonzero(points == 32)
        spaces = spaces[spaces > 0]
        cuts = spaces[~self._space[points[spaces - 1]]]
        bounds = np.concatenate(([0], cuts, [len(points)]))
        # The word of each hit: [bounds[k - 1], bounds[k]); words in text order.
        k = np.unique(np.searchsorted(bounds, hits, side="right"))
        starts = bounds[k - 1]
        ends = bounds[k]
        # Words close together share one tiktoken call (any span is exact there).
        first = np.flatnonzero(np.concatenate(([True], starts[1:] > ends[:-1] + _JOIN_GAP)))
        last = np.concatenate((first[1:] - 1, [len(k) - 1]))
        return list(zip(starts[first].tolist(), ends[last].tolist(), strict=True))

    def _holding(self, text: str, at: Any, windows: Any) -> list[int]:
        """The indices of ``text`` where an irregular token's text starts, among those
        whose three characters may start an anchor (``at``, with the four code points
        from each as the rows of ``windows``)."""
        np = self._np
        found = []
        for n, table in self._needles:
            fit = at <= len(text) - n
            hashes = _needle_hashes(windows[fit], n)
            hit = np.flatnonzero(np.take(table, hashes))
            for pos, key in zip(at[fit][hit].tolist(), hashes[hit].tolist(), strict=True):
                for offset, whole in self._wholes[n, key]:
                    if pos >= offset and text.startswith(whole, pos - offset):
                        found.append(pos - offset)
                        break
        return found

    def _words_of(self, text: str, hits: list[int]) -> list[tuple[int, int]] | None:
        """The merged spans of the words of a few ``hits`` (ascending), found in the
        string (the same cuts as :meth:`_spans`), or ``None`` past a long whitespace run."""
        spans: list[tuple[int, int]] = []
        steps = 0
        for hit in hits:
            if spans and hit < spans[-1][1]:
                continue
            start = text.rfind(" ", 0, hit + 1)
            while start > 0 and text[start - 1] in _WHITESPACE:
                start = text.rfind(" ", 0, start)
                steps += 1
            end = text.find(" ", hit + 1)
            while end != -1 and text[end - 1] in _WHITESPACE:
                end = text.find(" ", end + 1)
                steps += 1
            if steps > _FEW_HITS:
                return None
            start, end = max(start, 0), len(text) if end == -1 else end
            if spans and start <= spans[-1][1] + _JOIN_GAP:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
        return spans

    def encode_ordinary(self, text: str) -> list[int]:
        if len(text) >= PARALLEL_MIN and self.threads > 1:
            return self._fast.id_list(self._arrays([text])[0])  # (its parts joined by id_list)
        return self._encode_piece(text)

    def _on_all_cores(self, texts: list[str]) -> bool:
        """Whether a batch is checked and encoded text by text on all cores (:meth:`_arrays`):
        enough text, in texts long enough that a call per text costs little (else quicktok's
        own threads take the batch, its texts checked as one)."""
        total = sum(map(len, texts))
        return self.threads > 1 and total >= _BATCH_ON_ALL_CORES and total >= _TEXT_ON_ALL_CORES * len(texts)

    def _arrays(self, texts: list[str]) -> list[list[Any]]:
        """Each text's ids as uint32 arrays (one per part), checked and encoded on all cores."""
        return encode_parts(texts, self.threads, self._piece_array)

    def _piece_array(self, text: str) -> Any:
        """:meth:`_encode_piece` as a uint32 array."""
        if text.isascii() and not self._ascii_needles:
            return self._fast.encode_array(text)
        text, spans = self._spans(text)
        if not spans:
            return self._fast.encode_array(text)
        return self._np.array(self._encode_spans(text, spans), dtype=self._np.uint32)

    def _encode_piece(self, text: str) -> list[int]:
        """An NFC text on this thread (quicktok and tiktoken release the GIL)."""
        if text.isascii() and not self._ascii_needles:
            return self._fast.encode_serial(text)
        text, spans = self._spans(text)
        return self._encode_spans(text, spans) if spans else self._fast.encode_serial(text)

    def _encode_spans(self, text: str, spans: list[tuple[int, int]]) -> list[int]:
        exact = self._exact_engine()
        ids: list[int] = []
        pos = 0
        for a, b in spans:
            if a > pos:
                ids += self._fast.encode_serial(text[pos:a])
            ids += exact.encode_ordinary(self._normal(text[a:b]))
            pos = b
        if pos < len(text):
            ids += self._fast.encode_serial(text[pos:])
        return ids

    def encode_ordinary_batch(self, texts: list[str]) -> list[list[int]]:
        if self._on_all_cores(texts):
            return [self._fast.id_list(ids) for ids in self._arrays(texts)]
        out: list[list[int] | None] = [None] * len(texts)
        plain, plain_texts, checked = self._sort(texts)
        for (k, _, _), ids in zip(checked, self._encode_checked(checked), strict=True):
            out[k] = ids
        if plain:
            for k, ids in zip(plain, self._fast.encode_ordinary_batch(plain_texts), strict=True):
                out[k] = ids
        return out  # type: ignore[return-value]

    def encode_ordinary_flat(self, texts: list[str]) -> tuple[Any, Any]:
        """:meth:`encode_ordinary_batch` as ``(ids, offsets)`` (:func:`.backends.flatten`):
        the texts quicktok alone encodes never become id lists."""
        np = self._np
        if self._on_all_cores(texts):
            parts = self._arrays(texts)
            offsets = np.zeros(len(texts) + 1, dtype=np.int64)
            np.cumsum([sum(map(len, p)) for p in parts], out=offsets[1:])
            return np.concatenate([a for p in parts for a in p]), offsets
        plain, plain_texts, checked = self._sort(texts)
        if not checked:
            return self._fast.encode_ordinary_flat(plain_texts)
        from .base import flatten

        fast_ids, fast_offsets = self._fast.encode_ordinary_flat(plain_texts)
        slow_ids, slow_offsets = flatten(self._encode_checked(checked))
        slow = np.fromiter((k for k, _, _ in checked), dtype=np.int64, count=len(checked))
        lengths = np.empty(len(texts), dtype=np.int64)
        lengths[plain] = np.diff(fast_offsets)
        lengths[slow] = np.diff(slow_offsets)
        offsets = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        ids = np.empty(int(offsets[-1]), dtype=np.uint32)
        for rows, part, part_offsets in ((plain, fast_ids, fast_offsets), (slow, slow_ids, slow_offsets)):
            # each id of ``part`` moves by where its text starts in ``ids`` less where it starts in ``part``
            shift = np.repeat(offsets[rows] - part_offsets[:-1], np.diff(part_offsets))
            ids[shift + np.arange(len(part))] = part
        return ids, offsets

    def _sort(self, texts: list[str]) -> tuple[list[int], list[str], list[tuple[int, str, list[tuple[int, int]]]]]:
        """The texts quicktok encodes alone (indices, and the texts as encoded: lone
        surrogates read as U+FFFD), and those with words for the exact engine (index,
        the text as encoded, the words' spans)."""
        plain: list[int] = []
        plain_texts: list[str] = []
        checked: list[tuple[int, str, list[tuple[int, int]]]] = []
        marked = self._marked(texts)
        for k, text in enumerate(texts):
            if (k in marked) if marked is not None else not text.isascii():
                text, spans = self._spans(text)
                if spans:
                    checked.append((k, text, spans))
                    continue
            plain.append(k)
            plain_texts.append(text)
        return plain, plain_texts, checked

    def _encode_checked(self, checked: list[tuple[int, str, list[tuple[int, int]]]]) -> Any:
        """Ids of the :meth:`_sort` texts with words for the exact engine, in order."""
        if not checked:
            return []
        if self.threads > 1 and len(checked) > 1 and sum(len(t) for _, t, _ in checked) >= PARALLEL_MIN:
            return list(_pool(self.threads).map(lambda c: self._encode_spans(c[1], c[2]), checked))
        return [self._encode_spans(t, spans) for _, t, spans in checked]

    def _marked(self, texts: list[str]) -> set[int] | None:
        """Which of ``texts`` hold a character to check or an irregular token's text,
        found in one pass over them all (``None``: ASCII text holds none; all, where
        each text is searched alone)."""
        if not self._joinable or self._normalize_first or len(texts) < 2:
            return None if not self._ascii_needles else set(range(len(texts)))
        np = self._np
        _, _, hits = self._hits("\x00".join(texts))  # no irregular token holds U+0000
        starts = np.cumsum([0] + [len(text) + 1 for text in texts[:-1]])
        return set((np.searchsorted(starts, hits, side="right") - 1).tolist())

    def count_ordinary(self, text: str) -> int:
        if text.isascii() and not self._ascii_needles:
            return self._fast.count_ordinary(text)
        text, spans = self._spans(text)
        return len(self._encode_spans(text, spans)) if spans else self._fast.count_ordinary(text)

    def decode_bytes(self, ids: Any) -> bytes:
        return self._fast.decode_bytes(ids)

    def iter_token_bytes(self) -> Any:
        return self._fast.iter_token_bytes()
