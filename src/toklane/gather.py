"""Many token ids to their bytes (or text) in one pass: the id reader behind ``Tokenizer.decode``,
whole outputs parsed from ids and long ids feeds.

:func:`runs` reads a sequence of ids once and returns the bytes of its ordinary tokens as *runs*
cut at the marker ids, with the markers' positions; :func:`text` reads them the same way into one
text with each marker's own text in its place (what a whole output parsed from ids reads). Dropped
ids (special tokens that are no marker) and ``-1`` placeholders (unless told otherwise) are
skipped, so the runs on either side join, as the per-token loop joins them. Anything the per-token
loop must judge itself -- a hole, an id out of range, a ``bool``, a value that is no plain ``int``
-- makes them return ``None``, keeping nothing they built: the caller's loop then raises or skips
exactly as it always does.

Two implementations, one contract (tests run both on the same ids):

- ``toklane._gather``, a small C module compiled at install time (``setup.py``; optional, so an
  install without a C compiler still works). One pass over a list or tuple: per id, one 16-byte
  table entry that holds a short token's bytes, copied whole, then one UTF-8 decode straight from
  the buffer. The same in Python costs many times more per token (a numpy conversion, a gather of
  bytes objects and a join); benchmarks/tokenizer.py's decode table prints the compiled
  reader's time per token.
- a numpy fallback (this module), used where the C module is missing, for numpy arrays, or when
  ``TOKLANE_PURE_PYTHON=1`` is set.

:data:`NATIVE` says whether the C module is in use.
"""

from __future__ import annotations

import functools
import itertools
import sys
from array import array
from collections.abc import Iterable
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from .switches import pure_python

if TYPE_CHECKING:
    from .tokenizer import Tokenizer

try:
    if pure_python():
        raise ImportError("TOKLANE_PURE_PYTHON is set")
    from ._gather import flat_lists as _native_flat_lists
    from ._gather import id_list as _native_id_list
    from ._gather import ints as _native_ints
    from ._gather import runs as _native_runs
    from ._gather import text as _native_text
except ImportError:  # no compiler at install time, or the fallback asked for
    _native_runs = _native_text = _native_ints = _native_id_list = _native_flat_lists = None

#: Whether the compiled reader (``toklane._gather``) is in use.
NATIVE = _native_runs is not None


class _Numpy:
    """numpy, imported on first use: ``import toklane`` does not pay for it, and neither does a
    decode of lists through the C reader."""

    def __getattr__(self, name: str) -> Any:
        import numpy

        globals()["np"] = numpy
        return getattr(numpy, name)


np: Any = _Numpy()


def _is_ndarray(ids: Any) -> bool:
    """Whether ``ids`` is a numpy array (never where numpy was not imported: nothing made one)."""
    numpy = sys.modules.get("numpy")
    return numpy is not None and type(ids) is numpy.ndarray


#: Kinds of ids (:attr:`IdTable.kind_array`; the precedence of the per-token loop:
#: marker, dropped, hole).
ORDINARY, MARKER, DROPPED, HOLE = 0, 1, 2, 3

#: Fewest ids the numpy fallback reads in bulk (below, the per-token loop is as fast).
FALLBACK_MIN = 256

_BLOB = "_toklane_byte_blob"


class IdTable:
    """What :func:`runs` and :func:`text` read, for one tokenizer and one format pair. Read-only.

    ``table``: every token's bytes (``None`` in holes); ``kind_array``: each id's kind (numpy
    ``uint8``; ``kinds``, the same as bytes; ids past ``size`` are out of range). For the C reader,
    ``blob`` (every token's bytes back to back) and ``entries`` (per id, 16 bytes: a short ordinary
    token's bytes inline, else where its bytes are in ``blob``). The blob and the entries are built
    once per tokenizer (O(vocabulary)) with every added token, long token and hole sent to
    ``kinds``, and shared: a format pair only copies the kinds and marks its own markers and
    dropped tokens, and copies the entries too only where one of those is an ordinary short token.

    A marker whose bytes are no whole characters is read as a hole (the per-token loop reads
    it): :func:`text` decodes the markers' bytes within the text."""

    __slots__ = ("blob", "entries", "kind_array", "kinds", "table")

    def __init__(self, tok: Tokenizer, markers: Iterable[int], dropped: Iterable[int], size: int):
        self.table: tuple[bytes | None, ...] = tok.token_bytes_table
        shared = getattr(tok, _BLOB, None)
        if shared is None:  # built at most twice under a race, identically: no lock needed
            shared = _token_entries(self.table, tok.special_tokens.values())
            setattr(tok, _BLOB, shared)
        self.blob, base_entries, self.entries, base_kinds = shared
        kinds = base_kinds[:size].copy()  # (an id past the vocabulary is out of range, which the loop raises)
        n = len(kinds)
        table = self.table
        marked = [i for i in markers if 0 <= i < n]
        kinds[[i for i in dropped if 0 <= i < n]] = DROPPED
        kinds[marked] = MARKER
        kinds[[i for i in marked if not _whole_characters(table[i])]] = HOLE
        inline = np.flatnonzero((kinds != ORDINARY) & (base_entries["other"][:n] == 0))
        if len(inline):  # (no bundled format: its markers and dropped tokens are added tokens)
            entries = base_entries.copy()
            _send_to_kinds(entries, inline, *_places(table)[:2])
            self.entries = entries.tobytes()
        self.kinds: bytes = kinds.tobytes()
        self.kind_array = kinds
        self.kind_array.flags.writeable = False


def _whole_characters(data: bytes | None) -> bool:
    if data is None:
        return False
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


#: Longest token held in its entry (the other 2 of its 16 bytes: its size, and whether to look at the kinds).
INLINE = 14


@functools.cache
def _entry_dtype() -> Any:
    """One entry of :attr:`IdTable.entries`, as the C reader's ``Entry`` (16 bytes, no padding)."""
    return np.dtype([("data", "u1", (INLINE,)), ("size", "u1"), ("other", "u1")])


def _places(table: tuple[bytes | None, ...]) -> tuple[Any, Any, Any]:
    """Per id: where its bytes start in the blob, how many, and whether it is a hole."""
    sizes = np.fromiter((-1 if b is None else len(b) for b in table), dtype=np.int64, count=len(table))
    holes = sizes < 0
    sizes[holes] = 0
    return np.cumsum(sizes) - sizes, sizes, holes


def _send_to_kinds(entries: Any, ids: Any, starts: Any, sizes: Any) -> None:
    """Mark ``ids`` as read through the kinds, with where their bytes are (native uint32s)."""
    entries["other"][ids] = 1
    entries["size"][ids] = 0
    words = entries.view(np.uint32).reshape(len(entries), 4)
    words[ids, 0] = starts[ids]
    words[ids, 1] = sizes[ids]


def _token_entries(table: tuple[bytes | None, ...], added: Iterable[int]) -> tuple[bytes, Any, bytes, Any]:
    """The blob, the entries (an array, and as bytes: shared by the format pairs that need no copy)
    and the kinds every format pair starts from: a short ordinary token
    inline; added tokens, long tokens and holes to the kinds (HOLE where an id has no bytes or the
    C reader cannot copy them: past 4 GiB or over 64 KiB, no real vocabulary)."""
    starts, sizes, holes = _places(table)
    n = len(table)
    odd = holes | (starts + sizes >= 2**32) | (sizes > 0xFFFF)
    kinds = np.where(odd, HOLE, ORDINARY).astype(np.uint8)
    blob = b"".join(b for b in table if b)
    entries = np.zeros(n, dtype=_entry_dtype())
    short = ~odd & (sizes <= INLINE)
    short[[i for i in added if 0 <= i < n]] = False
    # every short token's bytes, padded with zeros: a gather from the blob per column
    at = np.flatnonzero(short)
    at_starts, at_sizes = starts[at], sizes[at]
    data = entries["data"]
    flat = np.frombuffer(blob, dtype=np.uint8)
    for column in range(INLINE):
        has = at_sizes > column
        data[at[has], column] = flat[at_starts[has] + column]
    entries["size"][at] = at_sizes
    _send_to_kinds(entries, np.flatnonzero(~short), np.where(odd, 0, starts), np.where(odd, 0, sizes))
    entries.flags.writeable = False
    return blob, entries, entries.tobytes(), kinds


def runs(ids: Any, table: IdTable, decode: bool, placeholders: bool = True) -> tuple[list[Any], list[int]] | None:
    """``(runs, positions)`` for ``ids`` (a list, a tuple or a numpy array): the bytes of
    the ordinary tokens, cut at each marker id (``positions``: where the markers are;
    ``len(runs) == len(positions) + 1``), as ``bytes`` -- or as ``str`` when ``decode`` (each run
    decoded on its own, invalid UTF-8 replaced by U+FFFD). ``None`` when the per-token loop must
    read the ids (see the module docstring; the fallback also declines fewer than
    :data:`FALLBACK_MIN` ids, and ``-1``). ``placeholders``: whether ``-1`` is skipped (as a
    parser does) or declined (as ``decode`` does: it is no token)."""
    if type(ids) is list or type(ids) is tuple:
        if _native_runs is not None:
            return _native_runs(ids, table.blob, table.entries, table.kinds, decode, placeholders)
    elif not _is_ndarray(ids):
        return None
    return _fallback_runs(ids, table, decode)


def text(ids: Any, table: IdTable, placeholders: bool = True) -> tuple[str, list[int], list[int]] | None:
    """``(text, positions, starts)`` for ``ids``, read as :func:`runs` reads them but with each
    marker's own text in its place: ``text`` is the decoded runs and markers joined,
    ``positions`` where the marker ids are, ``starts`` where each one's text starts in ``text``.
    ``None`` where :func:`runs` would be."""
    if (type(ids) is list or type(ids) is tuple) and _native_text is not None:
        return _native_text(ids, table.blob, table.entries, table.kinds, placeholders)  # type: ignore[no-any-return]
    got = runs(ids, table, True, placeholders)
    if got is None:
        return None
    pieces, positions = got
    values = ids.tolist() if _is_ndarray(ids) else ids
    parts = []
    starts = []
    at = 0
    for run, p in zip(pieces, positions, strict=False):  # (pieces: one more)
        mark = table.table[values[p]].decode()  # type: ignore[union-attr]  # (whole characters: IdTable)
        at += len(run)
        starts.append(at)
        parts += (run, mark)
        at += len(mark)
    parts.append(pieces[-1])
    return "".join(parts), positions, starts


def _fallback_runs(ids: Any, table: IdTable, decode: bool) -> tuple[list[Any], list[int]] | None:
    if len(ids) < FALLBACK_MIN:
        return None
    if _is_ndarray(ids):
        if ids.ndim != 1 or ids.dtype.kind not in "iu" or (ids.dtype.kind == "i" and ids.min() < 0):
            return None
        arr = ids
    else:
        arr = as_id_array(ids)  # (a list or a tuple: runs takes nothing else)
        if arr is None:
            return None
    kinds = table.kind_array
    if arr.max() >= len(kinds):
        return None
    odd = np.flatnonzero(kinds[arr])  # markers, dropped tokens, holes: usually a handful
    if len(odd) and (kinds[arr[odd]] == HOLE).any():
        return None
    values = ids.tolist() if _is_ndarray(ids) else ids
    bytes_table = table.table
    pieces: list[bytes] = []
    positions: list[int] = []
    start = 0
    run: list[bytes] = []
    for p in odd.tolist():
        if p > start:
            run.append(_join(bytes_table, values[start:p]))
        if kinds[values[p]] == MARKER:
            pieces.append(b"".join(run))
            positions.append(p)
            run = []
        start = p + 1
    if start < len(values):
        run.append(_join(bytes_table, values[start:]))
    pieces.append(b"".join(run))
    if decode:
        return [b.decode(errors="replace") for b in pieces], positions
    return pieces, positions


def _join(table: tuple[bytes | None, ...], ids: list[int]) -> bytes:
    """The bytes of valid ordinary ids, back to back (one C-level gather and join)."""
    return b"".join(itemgetter(*ids)(table)) if len(ids) > 1 else table[ids[0]]  # type: ignore[return-value]


def as_id_array(token_ids: list[Any] | tuple[Any, ...]) -> Any:
    """Integer ids as a numpy ``uint32`` array (one C-speed conversion), or None where the
    per-token loop must read them: a value that is no integer, is negative or over 32 bits, or
    is a ``bool`` (``array`` takes those as 0 and 1; the loop refuses them)."""
    try:
        arr = np.frombuffer(array("I", token_ids), dtype=np.uint32)
    except (TypeError, OverflowError, ValueError):
        return None
    small = np.flatnonzero(arr <= 1)
    if len(small) and any(type(token_ids[i]) is bool for i in small.tolist()):
        return None
    return arr


class IdLists:
    """uint32 id arrays (numpy) as lists of ``int``: with the C module, each id below ``size`` is one
    shared int object, made on its first use (an incref per id, where numpy's ``tolist`` makes an
    int per id, and the engines' own lists cost more still); ``tolist`` without it."""

    __slots__ = ("_cache",)

    def __init__(self, size: int):
        self._cache = _native_ints(size) if _native_ints is not None else None

    def __call__(self, ids: Any) -> list[int]:
        """``ids``: a uint32 array, or a list of them (one list of their ids end to end)."""
        cache = self._cache
        if type(ids) is list:
            if cache is not None and all(_native_array(a) for a in ids):
                return _native_id_list(cache, ids)  # type: ignore[misc]
            return np.concatenate(ids).tolist() if ids else []
        if cache is not None and _native_array(ids):
            return _native_id_list(cache, ids)  # type: ignore[misc]
        return ids.tolist()

    def flat(self, ids: bytes, offsets: bytes) -> list[list[int]]:
        """A flat batch encoding -- ``ids``, every text's ids end to end as little-endian uint32 bytes, and
        ``offsets``, one more little-endian uint64 than the texts, where each text's ids start (fastokens'
        ``encode_batch_flat``) -- as one list of ids per text. ``ValueError`` where the two disagree."""
        if self._cache is not None:
            return _native_flat_lists(self._cache, ids, offsets)  # type: ignore[misc]
        every = np.frombuffer(ids, dtype="<u4")
        at = np.frombuffer(offsets, dtype="<u8").tolist()
        if not at or any(b < a for a, b in itertools.pairwise(at)) or at[-1] > len(every):
            raise ValueError("flat: offsets out of order or past the ids")
        return [every[a:b].tolist() for a, b in itertools.pairwise(at)]


def _native_array(ids: Any) -> bool:
    """Whether ``ids`` is an array the compiled ``id_list`` reads (contiguous native uint32)."""
    return _is_ndarray(ids) and ids.dtype == np.uint32 and ids.flags.c_contiguous
