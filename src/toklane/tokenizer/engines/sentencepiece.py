"""A SentencePiece ``.model`` file (Llama 2, Mistral v1-v7, Gemma) as a backend over the ``sentencepiece`` library.

The library is the reference for these files; it decodes, and it encodes unless the model's merges
run on toklane's compiled encoder (:mod:`.sentencepiece_bpe`: BPE models with byte fallback, exact
to the library and ~10x faster), which hands back what it declines. toklane adds what its
:class:`~toklane.Tokenizer` contract asks:

* special tokens -- the model's control pieces (``<s>``, ``</s>``, ``[INST]``) and its unknown piece --
  are matched whole in text, as HF fast tokenizers match them, unless ``split_special_tokens``; the
  text between them is encoded as the library encodes a text on its own (its dummy-prefix space
  included). ``split_special_tokens=True`` is the library's own ``encode(text)``. User-defined pieces
  are matched by the library itself, in both modes;
* ``decode`` reads each run of ordinary ids as the library does and puts special tokens' text
  between runs (dropped with ``skip_special_tokens``);
* ``add_special_tokens`` puts BOS before the text, as the library's ``add_bos`` does.

The file is checked before the library reads it (:func:`toklane.tokenizer.files.parse_sentencepiece`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..files import SP_BYTE, SP_CONTROL, SP_UNKNOWN, SP_USER_DEFINED, SentencePieceModel, build_engine
from .base import AddedToken, _literals, cpu_count, flatten
from .sentencepiece_bpe import SentencePieceMerges

_SURROGATE = re.compile("[\ud800-\udfff]")


def available() -> bool:
    try:
        import sentencepiece  # noqa: F401
    except ImportError:
        return False
    return True


class SentencePieceBackend:
    """A private ``sentencepiece.SentencePieceProcessor`` over a checked model, and the model's merges
    on the compiled encoder where given (``merges``: then ``engine`` is ``compiled``). The library is
    built at load even then: it decodes, and its own parse of the file is the last check a file passes
    (a mutated model toklane's reader accepts can still fail it: ``tests/tokenizer/test_sentencepiece.py``),
    so a bad file fails at load, never on a first decode. ``source``: the file, named by a load error."""

    def __init__(self, model: SentencePieceModel, merges: SentencePieceMerges | None = None, source: str = ""):
        import sentencepiece

        self._sp = build_engine(
            source or "a SentencePiece model",
            "not a valid SentencePiece model: loading it",
            lambda: sentencepiece.SentencePieceProcessor(model_proto=model.data),
        )
        self._merges = merges
        self.engine = "compiled" if merges is not None else "sentencepiece"
        self._pieces = model.pieces
        self._types = model.types
        self.vocab_size = len(model.pieces)
        self.bos_id = model.bos_id if model.bos_id >= 0 else None
        special = [k for k, t in enumerate(model.types) if t in (SP_CONTROL, SP_UNKNOWN)]
        user = [k for k, t in enumerate(model.types) if t == SP_USER_DEFINED]
        self.added_tokens = tuple(
            sorted(
                [AddedToken(model.pieces[k], k, True) for k in special]
                + [AddedToken(model.pieces[k], k, False) for k in user],
                key=lambda t: t.id,
            )
        )
        self._special_ids = frozenset(special)
        self._id_of = {model.pieces[k]: k for k in special}
        self._match = _literals(self._id_of)
        self.threads = cpu_count()

    # encode ------------------------------------------------------------------
    def _sp_encode(self, text: str) -> Any:
        if self._merges is not None:
            ids = self._merges.encode(text)
            if ids is not None:
                return ids
        try:
            return self._sp.encode(text)
        except (UnicodeEncodeError, TypeError, RuntimeError):  # a lone surrogate
            return self._sp.encode(_SURROGATE.sub("\ufffd", text))

    def encode(self, text: str, split_special_tokens: bool) -> list[int]:
        hits = None if split_special_tokens or self._match is None else self._match.find_all(text)
        if not hits:
            return self._sp_encode(text)
        ids: list[int] = []
        start = 0
        strings = self._match.strings  # type: ignore[union-attr]
        for k, a, b in hits:
            if a > start:
                ids += self._sp_encode(text[start:a])
            ids.append(self._id_of[strings[k]])
            start = b
        if start < len(text):
            ids += self._sp_encode(text[start:])
        return ids

    def encode_batch(self, texts: list[str], split_special_tokens: bool) -> list[list[int]]:
        if self._merges is not None:
            return [self.encode(t, split_special_tokens) for t in texts]
        if split_special_tokens or self._match is None or not any(self._match.find_all(t) for t in texts):
            try:
                return self._sp.encode(texts, num_threads=self.threads)
            except (UnicodeEncodeError, TypeError, RuntimeError):  # a lone surrogate
                return self._sp.encode([_SURROGATE.sub("\ufffd", t) for t in texts], num_threads=self.threads)
        return [self.encode(t, split_special_tokens) for t in texts]

    def encode_batch_flat(self, texts: list[str], split_special_tokens: bool) -> tuple[Any, Any]:
        return flatten(self.encode_batch(texts, split_special_tokens))

    def count(self, text: str) -> int:
        if self._merges is not None and (self._match is None or not self._match.find_all(text)):
            n = self._merges.count(text)
            if n is not None:
                return n
        return len(self.encode(text, False))

    def with_special_tokens(self, text: str) -> list[int]:
        ids = self.encode(text, False)
        return ids if self.bos_id is None else [self.bos_id, *ids]

    # decode ------------------------------------------------------------------
    def decode(self, ids: Sequence[int], skip_special_tokens: bool) -> str:
        special = self._special_ids
        if special.isdisjoint(ids):
            return self._sp.decode(list(ids))
        parts: list[str] = []
        run: list[int] = []
        for i in ids:
            if i in special:
                if run:
                    parts.append(self._sp.decode(run))
                    run = []
                if not skip_special_tokens:
                    parts.append(self._pieces[i])
            else:
                run.append(i)
        if run:
            parts.append(self._sp.decode(run))
        return "".join(parts)

    def token_table(self) -> tuple[dict[int, str], dict[int, bytes]]:
        strings: dict[int, str] = {}
        raw: dict[int, bytes] = {}
        for i, (piece, kind) in enumerate(zip(self._pieces, self._types, strict=True)):
            strings[i] = piece
            if kind == SP_BYTE:
                raw[i] = bytes([int(piece[3:5], 16)])
            elif kind in (SP_CONTROL, SP_UNKNOWN, SP_USER_DEFINED):
                raw[i] = piece.encode()
            else:
                raw[i] = piece.replace("\u2581", " ").encode()
        return strings, raw
