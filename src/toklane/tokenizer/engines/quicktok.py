"""quicktok: the fastest exact engine for the encodings it has a hand-written scanner for."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ...gather import IdLists
from ..pieces import (
    PARALLEL_MIN,
    parallel_pieces,
    piece_size,
)
from .base import _without_surrogates, cpu_count

# Ids quicktok can return (it packs them in 18 bits): the size of the shared-int cache.
_QUICKTOK_IDS = 1 << 18
# Texts from this many characters are encoded to an array, then a list of shared ints: the array
# costs a fixed amount more per call, which the shared ints make up only on texts of some thousands
# of characters (cl100k_base: slower at 2K characters of code, faster from 20K).
_LISTS_FROM = 4096


class QuicktokEngine:
    """quicktok: the fastest exact engine for the encodings it has a scanner for
    (cl100k, o200k, o200k_harmony, llama3, qwen3 bundled; tekken and others over
    ranks, :mod:`.quickranks`; several times tiktoken's speed, ``benchmarks/tokenizer.py``). Long texts are cut at
    pre-token boundaries and encoded on all cores (``encode_batch`` releases
    the GIL)."""

    name = "quicktok"

    def __init__(self, encoding: Any, n_ordinary: int, first: int = 0, *, hidden: dict[int, bytes] | None = None):
        """``hidden``: the bytes of the tokens ``encoding`` holds without them
        (:func:`.quickranks.quicktok_from_ranks`), by id."""
        self._enc = encoding
        self._hidden = hidden or {}
        self._n_ordinary = n_ordinary
        self._first = first
        self.threads = cpu_count()
        self._lists = IdLists(_QUICKTOK_IDS)

    def encode_ordinary(self, text: str) -> list[int]:
        if len(text) >= PARALLEL_MIN and self.threads > 1:
            pieces = parallel_pieces(text, piece_size(len(text), self.threads))
            if len(pieces) > 1:
                return self._flat(pieces)
        return self.encode_serial(text)

    def encode_serial(self, text: str) -> list[int]:
        """On this thread only (the call releases the GIL). From :data:`_LISTS_FROM` characters the
        ids come back as an array and become a list of shared ints (:class:`.gather.IdLists`):
        quicktok's own list makes an int per id, a third of the time on long texts."""
        if len(text) >= _LISTS_FROM:
            return self._lists(self.encode_array(text))
        try:
            return self._enc.encode_ordinary(text)
        except TypeError:
            return self._enc.encode_ordinary(_without_surrogates(text))

    def encode_array(self, text: str) -> Any:
        """``text``'s ids as a uint32 array, on this thread only (for :meth:`id_list` to join)."""
        try:
            return self._enc.encode_batch([text], 1, False)[0]
        except TypeError:
            return self._enc.encode_batch([_without_surrogates(text)], 1, False)[0]

    def id_list(self, ids: Any) -> list[int]:
        """uint32 ids (an array, or a list of arrays joined end to end) as a list of shared ints
        (:class:`.gather.IdLists`)."""
        return self._lists(ids)

    def _flat(self, texts: list[str]) -> list[int]:
        """All ids of ``texts`` end to end (one parallel ``encode_batch``)."""
        return self._lists(self.encode_ordinary_flat(texts)[0])

    def encode_ordinary_batch(self, texts: list[str]) -> list[list[int]]:
        flat, offsets = self.encode_ordinary_flat(texts)
        bounds = offsets.tolist()
        return [self._lists(flat[bounds[i] : bounds[i + 1]]) for i in range(len(texts))]

    def encode_ordinary_flat(self, texts: list[str]) -> tuple[Any, Any]:
        """The batch as :func:`flatten` gives it, straight from quicktok (no id lists)."""
        try:
            return self._enc.encode_batch(texts, self.threads, False)
        except TypeError:
            return self._enc.encode_batch([_without_surrogates(t) for t in texts], self.threads, False)

    def count_ordinary(self, text: str) -> int:
        if len(text) >= PARALLEL_MIN and self.threads > 1:
            return len(self.encode_ordinary(text))
        try:
            return self._enc.count(text)
        except TypeError:
            return self._enc.count(_without_surrogates(text))

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        if not self._hidden or self._hidden.keys().isdisjoint(ids):
            return self._enc.decode_bytes(ids)
        parts: list[bytes] = []
        run: list[int] = []
        for i in ids:
            data = self._hidden.get(i)
            if data is None:
                run.append(i)
                continue
            if run:
                parts.append(self._enc.decode_bytes(run))
                run = []
            parts.append(data)
        if run:
            parts.append(self._enc.decode_bytes(run))
        return b"".join(parts)

    def decode_single_token_bytes(self, token: int) -> bytes:
        data = self._hidden.get(token)
        return self._enc.decode_single_token_bytes(token) if data is None else data

    def iter_token_bytes(self) -> Iterable[tuple[int, bytes]]:
        one = self.decode_single_token_bytes
        return ((i, one(i)) for i in range(self._first, self._first + self._n_ordinary))
