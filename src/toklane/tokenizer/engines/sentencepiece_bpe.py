"""SentencePiece BPE models (Llama 2, Mistral v1-v7) on toklane's compiled encoder: ~10x the library.

The ``sentencepiece`` library encodes a BPE model's text so: spaces become U+2581 and one U+2581 goes
before the text (the dummy prefix); its characters are the first parts, user-defined pieces whole
and frozen; then the adjacent pair whose joined piece has the best score merges, the leftmost among
equal scores (its agenda's order), until no pair is a piece; a character no piece holds is its UTF-8
bytes' byte pieces (byte fallback). :func:`merges_for` builds that as a ``toklane._bpe`` encoder:
the ranks are the model's ids, ``sp_tune`` makes characters the first parts and the score's place
(equal scores equal) each piece's priority, and words are split before each run of U+2581 --
which no piece of the models taken crosses, so the split only bounds each merge's work and lets a
word's ids be kept across calls.

Models it does not take stay on the library (:func:`why_not` says why): Unigram; no byte fallback
(runs of unknown characters fuse into one unknown piece); a normalisation table or rules; extra
whitespace removed; whitespace as a suffix; unused pieces (merged, then split back); a piece with
U+2581 after another character; a character of a piece that is no piece itself. The library stays
the reference: it decodes, and it encodes a text the compiled encoder declines (a lone surrogate).
"""

from __future__ import annotations

import functools
import math
import re
from array import array
from typing import Any

from ...streammatch import Literals
from ...switches import pure_python
from ..files import SP_BYTE, SP_NORMAL, SP_UNUSED, SP_USER_DEFINED, SentencePieceModel
from .base import _literals

try:
    from ... import _bpe  # type: ignore[attr-defined]
except ImportError:  # built without a C compiler
    _bpe = None

_G_SENTENCEPIECE = 7  # toklane._bpe's grammar: words split before each run of U+2581
_AS_LIST, _AS_COUNT = 0, 1
_C_DECLINE = 0x80  # toklane._bpe's class flag of a code point it hands back (a lone surrogate)
_UINT32 = "I" if array("I").itemsize == 4 else "L"
SPACE = "\u2581"
_INNER_SPACE = re.compile("[^\u2581\n]\u2581")


@functools.cache
def _classes() -> bytes:
    """One class byte per code point: only the surrogates flagged (the grammar reads U+2581 alone)."""
    table = bytearray(0x110000)
    table[0xD800:0xE000] = bytes([_C_DECLINE]) * 0x800
    return bytes(table)


def why_not(model: SentencePieceModel) -> str | None:
    """Why the model's encoding is not the compiled merges' (None: it is)."""
    if _bpe is None or pure_python():
        return "toklane's compiled encoder is not built (or TOKLANE_PURE_PYTHON is set)"
    if model.kind != "BPE":
        return f"a {model.kind} model"
    if not model.byte_fallback:
        return "no byte fallback (unknown characters fuse into one unknown piece)"
    if model.charsmap_bytes or model.rule_tsv:
        return f"a normalisation table ({model.normalizer})"
    if model.remove_extra_whitespaces:
        return "extra whitespace removed"
    if not model.escape_whitespaces or model.whitespace_as_suffix:
        return "whitespace not escaped as a U+2581 prefix"
    if not all(math.isfinite(s) for s in model.scores):
        return "a score that is not a finite number"
    if SP_UNUSED in model.types:
        return "unused pieces (merged, then split back)"
    normal = [p for p, t in zip(model.pieces, model.types, strict=True) if t == SP_NORMAL]
    inner = _INNER_SPACE.search("\n".join(normal))
    if inner is not None:
        return f"a piece holds U+2581 after another character ({inner.group()!r})"
    missing = set("".join(normal)).difference(p for p in normal if len(p) == 1)
    if missing:
        return f"a character of a piece is no piece ({min(missing)!r})"
    return None


class SentencePieceMerges:
    """A SentencePiece BPE model's ordinary encoding (no control tokens) on the compiled encoder."""

    def __init__(self, model: SentencePieceModel) -> None:
        kinds = model.types
        ranks = {p.encode(): k for k, p in enumerate(model.pieces) if kinds[k] == SP_NORMAL}
        for k in range(len(kinds)):
            if kinds[k] == SP_BYTE:  # a byte's own piece where no character piece is that byte
                ranks.setdefault(bytes([int(model.pieces[k][3:5], 16)]), k)
        self._encoder = _bpe.build(ranks, _classes(), _G_SENTENCEPIECE)
        scores = model.scores
        place = {s: k for k, s in enumerate(sorted({scores[k] for k in ranks.values()}, reverse=True))}
        prio = array(_UINT32, bytes(4 * (max(ranks.values()) + 1)))
        for k in ranks.values():
            prio[k] = place[scores[k]]  # (a byte piece's priority is never read: no pair joins into one)
        #: Pieces whose characters do not merge to them: a word of their text is encoded by merges.
        self.not_whole = _bpe.sp_tune(self._encoder, prio.tobytes())
        self._prefix = SPACE if model.add_dummy_prefix else ""
        user = {p: k for k, (p, t) in enumerate(zip(model.pieces, model.types, strict=True)) if t == SP_USER_DEFINED}
        self._user = user
        self._user_match: Literals | None = _literals(user)

    def _normal(self, text: str) -> str:
        return self._prefix + text.replace(" ", SPACE)

    def _run(self, text: str, mode: int) -> Any:
        """``toklane._bpe.encode`` of the normalised ``text``, user-defined pieces taken whole; None
        where the encoder declines (a lone surrogate)."""
        if not text:
            return [] if mode == _AS_LIST else 0
        normal = self._normal(text)
        match = self._user_match
        if match is None or (match.lead is not None and match.lead not in normal):
            return _bpe.encode(self._encoder, normal, mode)
        hits = match.find_all(normal)
        if not hits:
            return _bpe.encode(self._encoder, normal, mode)
        out: Any = [] if mode == _AS_LIST else 0
        start = 0
        strings = match.strings
        for k, a, b in hits:
            if a > start:
                part = _bpe.encode(self._encoder, normal[start:a], mode)
                if part is None:
                    return None
                out += part
            out += [self._user[strings[k]]] if mode == _AS_LIST else 1
            start = b
        if start < len(normal):
            part = _bpe.encode(self._encoder, normal[start:], mode)
            if part is None:
                return None
            out += part
        return out

    def encode(self, text: str) -> list[int] | None:
        """The library's ``encode(text)`` (None: a text to leave to it)."""
        return self._run(text, _AS_LIST)

    def count(self, text: str) -> int | None:
        """How many ids :meth:`encode` gives (None: a text to leave to the library)."""
        return self._run(text, _AS_COUNT)
