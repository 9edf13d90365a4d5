"""toklane's own compiled encoder (``toklane._bpe``) where a regex engine is the bottleneck.

DeepSeek-V4's pre-tokeniser is one long pattern with lookaheads and class
subtractions (:data:`.deepseek_v4.PATTERN`): tiktoken's regex engine runs it at
~16 MB/s, half its speed on cl100k. Qwen3.5/3.6's pattern joins marks to letters,
which quicktok's scanners do not, so words with a mark went to tiktoken
(~24 MB/s on text in Indic scripts). ``toklane._bpe`` hand-compiles both
grammars (``ds_piece`` and ``qwen_piece`` in ``src/toklane/_bpe.c``), reads
Unicode classes as HF ``tokenizers`` does (:mod:`.unicode_classes`) and merges
by rank as tiktoken does, with the GIL released: ~3x tiktoken on one core, and
all cores on long texts and batches.

:class:`CompiledEngine` keeps the tiktoken engine beside it, as the reference
for what the compiled grammar declines (a lone surrogate, which tiktoken
replaces by U+FFFD), for NFC and for decoding. Where the module was not built
(no C compiler at install) or ``TOKLANE_PURE_PYTHON=1`` is set, the loaders keep
the engines of before (tiktoken for DeepSeek-V4, quicktok for Qwen3.5/3.6): same
ids, slower.
"""

from __future__ import annotations

import functools
import hashlib
import os
import unicodedata
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

from .. import image_cache, unicode_classes
from ..pieces import PARALLEL_MIN
from ..unicode_classes import class_table
from .quickranks import encode_parts
from .tiktoken import TiktokenEngine

try:
    from ... import _bpe  # type: ignore[attr-defined]
except ImportError:  # built without a C compiler
    _bpe = None

#: Whether the compiled encoder is in use (the module was built and not switched off).
NATIVE = _bpe is not None and not os.environ.get("TOKLANE_PURE_PYTHON")

# Grammars ``toklane._bpe`` compiles, by the pattern each one is exactly.
_DEEPSEEK_V4 = 1
_QWEN3_5 = 2
_CJK_DEEPSEEK_V4 = ((0x4E00, 0x9FA5), (0x3040, 0x309F), (0x30A0, 0x30FF))

# What toklane._bpe.encode returns: a list of ids, their number, or their uint32 array.
_AS_LIST, _AS_COUNT, _AS_ARRAY = 0, 1, 2
_UINT32 = "I" if array("I").itemsize == 4 else "L"  # (the array typecode of 4-byte ids)

# A batch goes to the pool from this many characters in all (below, threads cost more than they save).
_BATCH_PARALLEL_MIN = 1 << 15


def _grammars() -> dict[str, tuple[int, tuple[tuple[int, int], ...]]]:
    from .. import deepseek_v4, patterns

    return {deepseek_v4.PATTERN: (_DEEPSEEK_V4, _CJK_DEEPSEEK_V4), patterns.QWEN3_5: (_QWEN3_5, ())}


def handles(pattern: str) -> bool:
    """Whether :func:`compiled_engine` runs ``pattern`` compiled (else it keeps the regex engine)."""
    return NATIVE and pattern in _grammars()


def compiled_engine(engine: TiktokenEngine, pattern: str, ranks: dict[bytes, int]) -> Any:
    """``engine`` (tiktoken over ``pattern`` and ``ranks``) behind the compiled encoder,
    where ``pattern`` is one it compiles and the module is in use; else ``engine``."""
    if not handles(pattern):
        return engine
    return CompiledEngine(engine, ranks, *_grammars()[pattern])


@functools.cache
def _class_table(cjk: tuple[tuple[int, int], ...]) -> bytes:
    """:func:`.unicode_classes.class_table`, from the disk cache where an image of it is (keyed by the
    stored class runs and ``cjk``; ~80 ms to expand otherwise)."""
    runs = hashlib.blake2b(unicode_classes.RUNS.encode(), digest_size=16).hexdigest()
    return image_cache.table(
        "class-table-1",
        f"{runs}|{cjk}|{unicode_classes.DECLINE}|{unicode_classes.CJK}",
        unicode_classes.N_CODEPOINTS,
        lambda: class_table(cjk),
    )


@functools.cache
def _nfc_flags() -> bytes:
    """:func:`_compute_nfc_flags`, from the disk cache where an image of it is (keyed by Python's Unicode version)."""
    return image_cache.table(
        "nfc-flags-1", f"unidata {unicodedata.unidata_version}", unicode_classes.N_CODEPOINTS, _compute_nfc_flags
    )


def is_nfc(text: str) -> bool:
    """Whether NFC leaves ``text`` as it is: ASCII is; else only the spans around the characters NFC may
    change (:func:`_compute_nfc_flags`, found by the compiled scan at ~1 ns a character) are checked,
    where Python's check of a whole text costs ~25-50 ns a character of Indic text."""
    if text.isascii():
        return True
    if _bpe is None:
        return unicodedata.is_normalized("NFC", text)
    return all(unicodedata.is_normalized("NFC", text[a:b]) for a, b in _bpe.nfc_spans(_nfc_flags(), text))


def _compute_nfc_flags() -> bytes:
    """One byte per code point, 1 where NFC (Python's, the reference's) may change, reorder or join a
    character to the one before: a mark, a character NFC replaces, the second of a canonical pair,
    a Hangul vowel or final jamo. Every other character is one NFC keeps as it is and never joins to
    what precedes it, so NFC leaves the text before it apart from the text after (~50 ms, once)."""
    flags = bytearray(unicode_classes.N_CODEPOINTS)
    for c in range(0x300, 0x30000):  # (no character below U+0300 or from U+30000 on is any of these)
        ch = chr(c)
        if unicodedata.combining(ch) or (unicodedata.decomposition(ch) and unicodedata.normalize("NFC", ch) != ch):
            flags[c] = 1
        parts = unicodedata.decomposition(ch).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            flags[int(parts[1], 16)] = 1
    flags[0x1161:0x1176] = b"\x01" * 0x15
    flags[0x11A8:0x11C3] = b"\x01" * 0x1B
    return bytes(flags)


class CompiledEngine:
    """``toklane._bpe`` over one grammar and ranks table; ``reference`` (the tiktoken
    engine over the same pattern and ranks) takes what it declines and decodes."""

    name = "compiled"

    def __init__(self, reference: TiktokenEngine, ranks: dict[bytes, int], grammar: int, cjk: tuple) -> None:
        self._reference = reference
        self._encoder = _bpe.build(ranks, _class_table(cjk), grammar)
        self.threads = reference.threads
        self._nfc = reference._nfc
        self._ranks = ranks
        self._table: list[bytes] | None = None  # token bytes by id - offset, made on first decode
        self._offset = min(ranks.values(), default=0)

    def _prepare(self, text: str) -> str:
        """NFC where the family normalises (Qwen), as the reference does: only the spans around
        characters NFC may change are checked (Python's check of a whole text costs ~25 ns per
        character of Indic text; this, ~1 ns and a few spans)."""
        if not self._nfc or text.isascii():
            return text
        spans = _bpe.nfc_spans(_nfc_flags(), text)
        if not spans:
            return text
        parts: list[str] = []
        at = 0
        for a, b in spans:
            segment = text[a:b]
            if not unicodedata.is_normalized("NFC", segment):
                parts += (text[at:a], unicodedata.normalize("NFC", segment))
                at = b
        return "".join((*parts, text[at:])) if at else text

    def _one(self, text: str) -> list[int]:
        ids = _bpe.encode(self._encoder, text, _AS_LIST)
        return self._reference.encode_ordinary(text) if ids is None else ids

    def _array(self, text: str) -> bytes:
        """``text``'s ids as native uint32 bytes, for :func:`toklane._bpe.join_ids`."""
        ids = _bpe.encode(self._encoder, text, _AS_ARRAY)
        return array(_UINT32, self._reference.encode_ordinary(text)).tobytes() if ids is None else ids

    def encode_ordinary(self, text: str) -> list[int]:
        if len(text) >= PARALLEL_MIN and self.threads > 1:
            return self.encode_ordinary_batch([text])[0]
        return self._one(self._prepare(text))  # NFC where the family normalises (Qwen)

    def encode_ordinary_batch(self, texts: list[str]) -> list[list[int]]:
        total = sum(map(len, texts))
        if self.threads == 1 or total < _BATCH_PARALLEL_MIN or (len(texts) == 1 and total < PARALLEL_MIN):
            return [self._one(self._prepare(t)) for t in texts]
        # Every text, long ones cut at pre-token boundaries, encoded part by part on all cores
        # (quickranks.encode_parts). Texts are cut before NFC and each part normalised on its core:
        # a cut (pieces._SAFE_CUT) is also a normalisation boundary, so NFC(text) is the parts' NFC
        # end to end and each cut is still a pre-token boundary there. It lies before an ASCII space
        # (a starter that NFC never joins to what precedes it) after a non-space character (which
        # NFC never turns into a space), or after a newline (which no character joins or reorders
        # across); the parts' ends keep those characters. Each part's ids come back as a uint32
        # array (the GIL released throughout); one list per text is then made from its parts'
        # arrays at once (no list per part to join and free).
        arrays = encode_parts(texts, self.threads, lambda part: self._array(self._prepare(part)))
        return [_bpe.join_ids(self._encoder, parts) for parts in arrays]

    def count_ordinary(self, text: str) -> int:
        if len(text) >= PARALLEL_MIN:
            return len(self.encode_ordinary(text))
        text = self._prepare(text)
        n = _bpe.encode(self._encoder, text, _AS_COUNT)
        return self._reference.count_ordinary(text) if n is None else n

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        """The bytes of ``ids`` (ordinary ids, checked by the caller) joined from the token table:
        no tiktoken needed to decode (its CoreBPE is built only for what the encoder declines).
        Long id lists reach this rarely (the tokenizer's compiled id reader joins them)."""
        table = self._table
        if table is None:
            table = self._table = self._token_table()
        off = self._offset
        if off:
            return b"".join([table[i - off] for i in ids])
        return b"".join(map(table.__getitem__, ids))

    def _token_table(self) -> list[bytes]:
        """Every token's bytes by ``id - offset`` (ranks checked at load: ids dense from the offset)."""
        ranks, off = self._ranks, self._offset
        if list(ranks.values()) == list(range(off, off + len(ranks))):  # (in id order: every bundled file)
            return list(ranks)
        table: list[bytes] = [b""] * len(ranks)
        for data, i in ranks.items():
            table[i - off] = data
        return table

    def iter_token_bytes(self) -> Iterable[tuple[int, bytes]]:
        return self._reference.iter_token_bytes()
