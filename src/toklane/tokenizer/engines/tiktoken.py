"""tiktoken over a ranks table and one pre-tokenisation pattern."""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..image_cache import as_dict
from ..pieces import (
    PARALLEL_MIN,
    encode_in_windows,
    long_run_threshold,
    parallel_pieces,
    piece_size,
)
from .base import _SPLITTABLE_ENDINGS, _engine_failure, cpu_count


def _parallel_patterns() -> frozenset[str]:
    from .. import patterns
    from . import quickranks

    return frozenset(
        (
            patterns.CL100K,
            patterns.O200K,
            patterns.LLAMA3,
            patterns.QWEN2,
            patterns.QWEN3_5,
            quickranks.TEKKEN,
            patterns.DEEPSEEK_V4,
        )
    )


# Patterns for which :func:`.pieces.parallel_pieces` cuts are proven (and tested).
_PARALLEL_PATTERNS = _parallel_patterns()


class _OnFirstUse:
    """``engine._enc``: built by ``engine._build()`` on first read, which stores it in the instance
    (a non-data descriptor: from then on the instance's attribute is read, nothing runs here)."""

    def __get__(self, engine: Any, owner: type | None = None) -> Any:
        if engine is None:
            return self
        return engine._build()


def python_nfc(text: str) -> str:
    """``text`` in NFC by Python's ``unicodedata`` (``text`` itself where it is already)."""
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


class TiktokenEngine:
    """tiktoken over a ranks table (used where quicktok has no scanner for the
    pre-tokenisation pattern: Qwen3.5/3.6, Mistral tekken, user .tiktoken files)."""

    name = "tiktoken"
    _enc = _OnFirstUse()

    def __init__(
        self,
        name: str,
        pattern: str,
        ranks: Mapping[bytes, int],
        *,
        nfc: bool = False,
        normalize: Callable[[str], str] | None = None,
        splittable: bool | None = None,
    ):
        """``nfc``: text is encoded in NFC by Python's tables (:func:`python_nfc`: the bundled Qwen
        vocabularies'); ``normalize``: in the form this gives instead (HF ``tokenizers``' NFC or NFKC for
        a user's file: :class:`.hf.HFNormalizer`). ``splittable``: whether :mod:`.pieces` may cut long
        whitespace runs for ``pattern`` (``None``: when it ends in the ranked families' whitespace
        alternatives)."""
        self._name = name
        self._pattern = pattern
        self._ranks = ranks
        self._normalize: Callable[[str], str] | None = normalize or (python_nfc if nfc else None)
        # tiktoken's CoreBPE (a slow build over a large table) is built when first used: where this
        # engine is the compiled encoder's reference, only for the rare texts that encoder declines.
        self._lock = threading.Lock()
        # Texts from this length on may hold a whitespace run that tiktoken's
        # regex cannot take (from 999,999 characters): they go through pieces.
        self._long = long_run_threshold()
        self._splittable = pattern.endswith(_SPLITTABLE_ENDINGS) if splittable is None else splittable
        # Cut long texts for all cores only where the cuts are proven (the
        # bundled families' patterns; a wrapped tiktoken.Encoding may have any).
        self.threads = cpu_count() if pattern in _PARALLEL_PATTERNS else 1

    def build(self) -> Any:
        """tiktoken's encoding, built now if it was not yet."""
        return self._enc

    def _build(self) -> Any:
        """tiktoken's encoding over the ranks and pattern, built once (under a lock); then kept as the
        instance's ``_enc`` attribute, so later uses are a plain attribute read (:class:`_OnFirstUse`)."""
        with self._lock:
            enc = self.__dict__.get("_enc")
            if enc is None:
                import tiktoken

                enc = tiktoken.Encoding(
                    self._name, pat_str=self._pattern, mergeable_ranks=as_dict(self._ranks), special_tokens={}
                )
                self.__dict__["_enc"] = enc
            return enc

    @property
    def _built(self) -> Any:
        """tiktoken's encoding where it was built, else None."""
        return self.__dict__.get("_enc")

    def _prepare(self, text: str) -> str:
        return self._normalize(text) if self._normalize is not None else text

    def normalized(self, text: str) -> str:
        """``text`` as this engine reads it (in its normal form, where it has one)."""
        return self._prepare(text)

    def encode_ordinary(self, text: str) -> list[int]:
        if self._normalize is not None:
            text = self._normalize(text)
        # tiktoken itself replaces lone surrogates with U+FFFD; it releases the GIL.
        if len(text) < PARALLEL_MIN:
            return self._enc.encode_ordinary(text)
        return self._encode_parallel(text)

    def _encode_parallel(self, text: str) -> list[int]:
        """A long text cut at pre-token boundaries, its pieces on all cores
        (tiktoken's batch threads; each piece may still hold a long run)."""
        pieces = parallel_pieces(text, piece_size(len(text), self.threads)) if self.threads > 1 else [text]
        if len(pieces) == 1:
            return self._enc.encode_ordinary(text) if len(text) < self._long else self._encode_long(text)
        ids: list[int] = []
        for part in self.encode_ordinary_batch(pieces, prepared=True):
            ids += part
        return ids

    def _encode_long(self, text: str) -> list[int]:
        """A text that may hold a whitespace run too long for tiktoken's regex:
        encoded in windows (:mod:`.pieces`); an engine panic becomes an error."""
        try:
            ids = (
                encode_in_windows(text, self._enc.encode_ordinary, self._enc.decode_single_token_bytes)
                if self._splittable
                else None
            )
            return self._enc.encode_ordinary(text) if ids is None else ids
        except BaseException as exc:
            raise _engine_failure(self.name, exc) from None

    def encode_ordinary_batch(self, texts: list[str], *, prepared: bool = False) -> list[list[int]]:
        if not prepared:
            texts = [self._prepare(t) for t in texts]
        if max(map(len, texts), default=0) >= self._long:
            return [self._encode_long(t) if len(t) >= self._long else self._enc.encode_ordinary(t) for t in texts]
        return self._enc.encode_ordinary_batch(texts, num_threads=self.threads)

    def count_ordinary(self, text: str) -> int:
        return len(self.encode_ordinary(text))

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        return self._enc.decode_bytes(ids)

    def iter_token_bytes(self) -> Iterable[tuple[int, bytes]]:
        return ((i, b) for b, i in self._ranks.items())
