"""Incremental detokenization: text for new ids, in O(new ids) per step."""

from __future__ import annotations

import weakref
from codecs import utf_8_decode
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from operator import index as _as_index
from typing import Any

from ..errors import InvalidTokenIdError
from ..tokenizer import Tokenizer, load_tokenizer


def as_id_list(ids: Iterable[int] | int | Any) -> list[int]:
    """``ids`` as a list: lists pass through; numpy arrays and torch tensors via ``tolist()``;
    a single int (or numpy integer) becomes a one-element list. Raises ``TypeError`` for
    what is neither an id nor an ordered collection of them (``None``, a float, a string,
    bytes, a mapping, a set). Elements are not checked here."""
    if type(ids) is list:
        return ids
    if hasattr(ids, "tolist"):
        ids = ids.tolist()
        return ids if isinstance(ids, list) else [ids]
    if isinstance(ids, int):
        return [ids]
    if isinstance(ids, (str, bytes, bytearray, Mapping, AbstractSet)) or not isinstance(ids, Iterable):
        raise TypeError(f"expected a token id or a sequence of token ids, got {type(ids).__name__}")
    return list(ids)


_NO_IDS: frozenset[int] = frozenset()
_SPECIAL_IDS: weakref.WeakKeyDictionary[Tokenizer, frozenset[int]] = weakref.WeakKeyDictionary()


def _special_ids(tok: Tokenizer) -> frozenset[int]:
    """Ids of the added tokens flagged special, computed once per tokenizer (thousands on some
    vocabularies: not per detokenizer). A race computes the same set twice, harmlessly."""
    ids = _SPECIAL_IDS.get(tok)
    if ids is None:
        ids = _SPECIAL_IDS[tok] = frozenset(t.id for t in tok.added_tokens if t.special)
    return ids


class IncrementalDetokenizer:
    """Turns a stream of token ids into text as soon as the text is valid UTF-8.

    Bytes of an incomplete UTF-8 character are held back until the character
    completes (or :meth:`flush` ends the stream, turning them into U+FFFD), so
    the concatenation of every ``step`` and the final ``flush`` equals
    ``tokenizer.decode(all_ids, skip_special_tokens)`` for every chunking.
    ``skip_special_tokens`` drops the added tokens flagged special, as ``decode``
    does (non-special added tokens such as Qwen's ``<think>`` stay).

    Works from the tokenizer's cached id -> bytes table: no ``decode`` call, in
    the constructor or per step. ``prompt_ids`` are accepted for engines that
    pass them and never read: with byte-level vocabularies (every bundled
    tokenizer) the text of the output does not depend on the prompt, and a
    prompt that ends inside a character leaks none of its bytes into the output
    (the output's continuation bytes decode to U+FFFD, as in ``decode(output_ids)``).

    Ids may be ints, numpy integers, or a numpy array / torch tensor of them.
    An invalid id (negative, past the id space, in a hole of it, or not an
    integer) raises :class:`toklane.InvalidTokenIdError` before any state
    changes: the stream continues as if that ``step`` call had not happened.
    """

    __slots__ = ("_name", "_pending", "_skip", "_table", "_vocab_size")

    def __init__(
        self,
        tokenizer: Tokenizer | Any,
        prompt_ids: Sequence[int] | None = None,
        skip_special_tokens: bool = False,
    ):
        tok = load_tokenizer(tokenizer)
        self._name = tok.name
        self._table = tok.token_bytes_table
        self._vocab_size = tok.vocab_size
        self._skip = _special_ids(tok) if skip_special_tokens else _NO_IDS
        self._pending = b""  # bytes of an incomplete UTF-8 character, held back
        del prompt_ids  # byte-level decoding is context-free; see the class docstring

    def pieces(self, new_ids: Iterable[int] | Any) -> list[bytes]:
        """Bytes of each id (``b""`` for a skipped special token), every id validated
        first; nothing changes state. Used by components that attribute text to tokens."""
        table, size, skip = self._table, self._vocab_size, self._skip
        ids = new_ids if type(new_ids) is list else self.id_list(new_ids)
        out: list[bytes] = []
        for i in ids:
            if type(i) is not int:
                i = self._coerce(i)
            data = table[i] if 0 <= i < size else None
            if data is None:
                raise InvalidTokenIdError(i, self._name, size)
            out.append(b"" if i in skip else data)
        return out

    def id_list(self, new_ids: Any) -> list[int]:
        """``new_ids`` as a list (:func:`as_id_list`), or an :class:`InvalidTokenIdError` naming
        what was given (``None``, a float, a string...). Elements are checked by :meth:`pieces`."""
        if type(new_ids) is list:
            return new_ids
        try:
            return as_id_list(new_ids)
        except TypeError:
            raise InvalidTokenIdError(new_ids, self._name, self._vocab_size) from None

    def _coerce(self, token_id: Any) -> int:
        if not isinstance(token_id, bool):
            try:
                return _as_index(token_id)  # numpy integers
            except TypeError:
                pass
        raise InvalidTokenIdError(token_id, self._name, self._vocab_size)

    def decode_bytes(self, data: bytes, final: bool = False) -> str:
        """Feed raw token bytes (as returned by :meth:`pieces`); the text they complete."""
        if self._pending:
            data = self._pending + data
        # The C function under codecs' incremental UTF-8 decoder: same text, same held-back bytes.
        text, used = utf_8_decode(data, "replace", final)
        self._pending = data[used:] if used != len(data) else b""
        return text

    def step(self, new_ids: Iterable[int] | Any) -> str:
        """Text made complete by ``new_ids`` (possibly empty)."""
        # Fast path, the decode loop's common case: one valid id (an int or a one-int list).
        cls = type(new_ids)
        i = new_ids[0] if cls is list and len(new_ids) == 1 else new_ids
        if type(i) is int and 0 <= i < self._vocab_size:
            data = self._table[i]
            if data is not None and i not in self._skip:
                if self._pending:
                    return self.decode_bytes(data)
                if data.isascii():
                    return data.decode("ascii")
                text, used = utf_8_decode(data, "replace", False)
                if used != len(data):
                    self._pending = data[used:]
                return text
        parts = self.pieces(new_ids)
        if not parts:
            return ""
        return self.decode_bytes(parts[0] if len(parts) == 1 else b"".join(parts))

    def flush(self) -> str:
        """End the stream: held-back bytes of an unfinished character become U+FFFD."""
        return self.decode_bytes(b"", final=True)

    @property
    def pending_bytes(self) -> int:
        """Number of bytes held back (an incomplete UTF-8 character)."""
        return len(self._pending)
