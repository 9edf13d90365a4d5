"""The interface every engine file of this package implements, and what they share.

An *engine* (:class:`BPEEngine`) encodes ordinary text of a byte-level BPE given as ranks;
a *backend* (:class:`Backend`) is what :class:`toklane.Tokenizer` calls: it encodes content
(added tokens included) and decodes. One file per engine:

* :mod:`.quicktok` -- quicktok's hand-written scanners (:mod:`.quickranks`: over ranks it does not
  bundle, checked against tiktoken);
* :mod:`.tiktoken` -- tiktoken over a ranks table and one pattern;
* :mod:`.compiled` -- toklane's own compiled grammars (``toklane._bpe``);
* :mod:`.ranked` -- any of those three plus the model's added tokens (a backend);
* :mod:`.hf` -- HF ``tokenizers`` over a ``tokenizer.json`` (a backend; the reference);
* :mod:`.fastokens` -- fastokens over a ``tokenizer.json`` (a backend), built in the background
  once it pays (:mod:`.staged`);
* :mod:`.sentencepiece` -- the ``sentencepiece`` library over a ``.model`` file (a backend).

:func:`.choose.choose_engine` reads a file's pipeline and says which of them runs it, and why.
Backends encode *content* only: BOS/EOS added by ``add_special_tokens`` and truncation live in
:class:`toklane.Tokenizer`, outside every backend, so no per-call option ever mutates shared state.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import struct
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ...errors import InvalidArgumentError
from ...streammatch import Literals, TrieTables
from ...switches import thread_limit
from ..pieces import (
    UnjoinableWindowsError,
)


@dataclass(frozen=True, slots=True)
class AddedToken:
    """A token matched as a whole in input text before BPE runs.

    ``special`` follows the HF ``tokenizer.json`` flag: special tokens are
    dropped by ``decode(skip_special_tokens=True)`` and read as plain text by
    ``encode(split_special_tokens=True)``. Non-special added tokens (Qwen's
    ``<think>``, ``<tool_call>``; DeepSeek's ``<think>``) are always atomic and
    always decoded.
    """

    content: str
    id: int
    special: bool = True


# --------------------------------------------------------------------------- engines


class BPEEngine(Protocol):
    """Ordinary byte-level BPE: no added-token handling, no normalisation."""

    name: str

    def encode_ordinary(self, text: str) -> list[int]: ...

    def encode_ordinary_batch(self, texts: list[str]) -> list[list[int]]: ...

    def count_ordinary(self, text: str) -> int: ...

    def decode_bytes(self, ids: Sequence[int]) -> bytes: ...

    def iter_token_bytes(self) -> Iterable[tuple[int, bytes]]:
        """Every ordinary token as ``(id, bytes)``."""
        ...


_SURROGATE = re.compile("[\ud800-\udfff]")


def _without_surrogates(text: str) -> str:
    """Lone surrogates cannot be UTF-8 encoded; read them as U+FFFD (as tiktoken does)."""
    return _SURROGATE.sub("\ufffd", text)


def surrounding(plain: Sequence[int], full: Sequence[int]) -> tuple[Sequence[int], Sequence[int]] | None:
    """What ``full`` (a text's ids with the special-token template) holds before and after ``plain`` (the
    text's ids alone), where it holds it; None where it does not."""
    for start in range(len(full) - len(plain) + 1):
        if full[start : start + len(plain)] == plain:
            return full[:start], full[start + len(plain) :]
    return None


def flatten(batch: Sequence[Sequence[int]]) -> tuple[Any, Any]:
    """A batch of id lists as ``(ids, offsets)``: every id end to end (numpy ``uint32``)
    and where each list starts (``int64``, one more than the batch; list ``k`` is
    ``ids[offsets[k]:offsets[k + 1]]``)."""
    import numpy as np

    offsets = np.zeros(len(batch) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, batch), dtype=np.int64, count=len(batch)), out=offsets[1:])
    ids = np.fromiter(itertools.chain.from_iterable(batch), dtype=np.uint32, count=int(offsets[-1]))
    return ids, offsets


def _engine_failure(engine: str, exc: BaseException) -> InvalidArgumentError:
    """A Rust panic (``pyo3_runtime.PanicException``, not an ``Exception``) or
    windows that cannot be joined, as a documented error; anything else is
    re-raised as it is."""
    if type(exc).__module__ != "pyo3_runtime" and not isinstance(exc, UnjoinableWindowsError):
        raise exc
    return InvalidArgumentError("text", f"cannot be encoded by the {engine} engine ({str(exc)[:200]})")


# Endings of the pre-tokenisation patterns whose whitespace alternatives
# :mod:`toklane.tokenizer.pieces` reasons about (every bundled family's).
_SPLITTABLE_ENDINGS = (r"\s*[\r\n]+|\s+(?!\S)|\s+", r"\s*[\r\n]|\s+(?!\S)|\s")


def cpu_count() -> int:
    """Threads a tokenizer engine may use: the cores this process may run on, at most
    :func:`toklane.switches.thread_limit` (``TOKLANE_THREADS``, or what
    :func:`~toklane.switches.set_thread_limit` set: corpus workers set 1 so that N workers
    use N cores). Read when an engine is built."""
    try:
        cores = max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        cores = max(1, os.cpu_count() or 1)
    limit = thread_limit()
    return cores if limit is None else min(cores, limit)


# --------------------------------------------------------------------------- backends


class Backend(Protocol):
    """What :class:`toklane.Tokenizer` needs from an engine."""

    engine: str
    added_tokens: tuple[AddedToken, ...]

    def encode(self, text: str, split_special_tokens: bool) -> list[int]: ...

    def encode_batch(self, texts: list[str], split_special_tokens: bool) -> list[list[int]]: ...

    def encode_batch_flat(self, texts: list[str], split_special_tokens: bool) -> tuple[Any, Any]:
        """``flatten(encode_batch(...))``, without the lists where the engine can."""
        ...

    def count(self, text: str) -> int: ...

    def decode(self, ids: Sequence[int], skip_special_tokens: bool) -> str: ...

    def token_table(self) -> tuple[dict[int, str], dict[int, bytes]]:
        """Every token as ``id -> vocab string`` and ``id -> raw bytes``.
        Built once per tokenizer (called under the tokenizer's lock)."""
        ...

    def with_special_tokens(self, text: str) -> list[int]:
        """Ids of ``text`` with the model's own BOS/EOS template applied."""
        ...


def _literals(strings: Iterable[str]) -> Literals | None:
    """The added tokens' texts as :class:`.streammatch.Literals` (the longest at the leftmost start,
    as the tokenizers match them; one compiled pass over a text); ``None`` for no strings. The scan's
    tables of many strings come from the disk cache (:func:`_cached_trie_tables`)."""
    ordered = sorted(set(strings) - {""})
    if not ordered:
        return None
    if len(ordered) < _CACHED_TRIE_FROM:
        return Literals(ordered)
    return Literals(ordered, tables=lambda make: _cached_trie_tables(ordered, make))


# Added tokens from which the scan's tables are kept in the disk cache: making them for hundreds of
# tokens (DeepSeek-V4's ~800) costs more than reading an image of them, for a dozen less.
_CACHED_TRIE_FROM = 64
_TRIE_COUNTS = struct.Struct("<III")  # node bytes, edge bytes, leads


def _cached_trie_tables(strings: list[str], make: Callable[[], TrieTables]) -> TrieTables:
    """``make()``'s tables for ``strings``, from the disk cache where an image of them is (keyed by a
    hash of the strings; :meth:`.streammatch.Literals.fits` checks what is read)."""
    from .. import image_cache

    digest = hashlib.blake2b("\0".join(strings).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    def dump(tables: TrieTables) -> bytes:
        nodes, edges, leads = tables
        return _TRIE_COUNTS.pack(len(nodes), len(edges), len(leads)) + nodes + edges + array("I", leads).tobytes()

    def load(payload: bytes) -> TrieTables | None:
        if len(payload) < _TRIE_COUNTS.size:
            return None
        n_nodes, n_edges, n_leads = _TRIE_COUNTS.unpack_from(payload)
        at = _TRIE_COUNTS.size
        if len(payload) != at + n_nodes + n_edges + 4 * n_leads:
            return None
        leads = array("I")
        leads.frombytes(payload[at + n_nodes + n_edges :])
        return payload[at : at + n_nodes], payload[at + n_nodes : at + n_nodes + n_edges], tuple(leads)

    return image_cache.cached("trie-tables-1", f"{len(strings)}|{digest}", make, dump, load)
