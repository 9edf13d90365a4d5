"""A ranks engine (quicktok, tiktoken or compiled) plus the model's added tokens: a backend."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..bytelevel import bytes_to_token_string
from .base import AddedToken, BPEEngine, _literals, flatten


class RankedBPEBackend:
    """A ranks-based BPE engine plus the model's added tokens."""

    def __init__(
        self,
        engine: BPEEngine,
        added_tokens: Iterable[AddedToken],
        *,
        bos_id: int | None = None,
        aliases: dict[str, int] | None = None,
    ):
        self._engine = engine
        self.engine = engine.name
        self.added_tokens = tuple(sorted(added_tokens, key=lambda t: t.id))
        self.bos_id = bos_id
        # Extra spellings that also encode to an added id (o200k_harmony maps
        # both <|endofprompt|> and <|reserved_200018|> to 200018).
        by_text = {t.content: t.id for t in self.added_tokens}
        by_text.update(aliases or {})
        self._id_of = by_text
        self._special_ids = frozenset(t.id for t in self.added_tokens if t.special)
        self._match_all = _literals(by_text)
        # Under split_special_tokens a special token is text in every spelling (an alias too).
        self._match_atomic = _literals(s for s, i in by_text.items() if i not in self._special_ids)
        self._added_ids = frozenset(t.id for t in self.added_tokens)
        self._added_bytes = {t.id: t.content.encode() for t in self.added_tokens}

    @property
    def spellings(self) -> dict[str, int]:
        """Every text that encodes to an added token, its aliases too, and the id it encodes to."""
        return dict(self._id_of)

    def token_bytes(self) -> Iterable[tuple[int, bytes]]:
        """``(id, bytes)`` of every ordinary token (the id is its rank)."""
        return self._engine.iter_token_bytes()

    def front(self, owner: Any, method: Any) -> Any:
        """``Tokenizer.encode``'s common call in C where the engine offers it (:meth:`.CompiledEngine.front`):
        a text holding none of the characters the added tokens start with needs no scan for them (those
        matched under ``split_special_tokens`` too, where they are few); else None."""
        from .compiled import front_leads

        make = getattr(self._engine, "front", None)
        leads = "" if self._match_all is None else front_leads(self._match_all.strings)
        split_leads = "" if self._match_atomic is None else front_leads(self._match_atomic.strings)
        return (
            None if make is None or (leads is None and split_leads is None) else make(owner, method, leads, split_leads)
        )

    def compiled_encoder(self) -> Any:
        """The compiled encoder the engine runs on (``toklane._bpe``; ordinary text, no added tokens), or None."""
        return getattr(self._engine, "native", None)

    # encode ------------------------------------------------------------------
    def encode(self, text: str, split_special_tokens: bool) -> list[int]:
        added = self._match_atomic if split_special_tokens else self._match_all
        if added is None or (added.lead is not None and added.lead not in text):  # (most texts: no scan)
            return self._engine.encode_ordinary(text)
        hits = added.find_all(text)
        if not hits:
            return self._engine.encode_ordinary(text)
        ids: list[int] = []
        start = 0
        encode = self._engine.encode_ordinary
        id_of, strings = self._id_of, added.strings  # type: ignore[union-attr]
        for k, a, b in hits:
            if a > start:
                ids += encode(text[start:a])
            ids.append(id_of[strings[k]])
            start = b
        if start < len(text):
            ids += encode(text[start:])
        return ids

    def encode_batch(self, texts: list[str], split_special_tokens: bool) -> list[list[int]]:
        added = self._match_atomic if split_special_tokens else self._match_all
        if added is None or not any(added.find_all(t) for t in _holding(texts, added.lead)):
            return self._engine.encode_ordinary_batch(texts)
        return [self.encode(t, split_special_tokens) for t in texts]

    def encode_batch_flat(self, texts: list[str], split_special_tokens: bool) -> tuple[Any, Any]:
        added = self._match_atomic if split_special_tokens else self._match_all
        if added is None or not any(added.find_all(t) for t in _holding(texts, added.lead)):
            flat = getattr(self._engine, "encode_ordinary_flat", None)
            return flat(texts) if flat is not None else flatten(self._engine.encode_ordinary_batch(texts))
        return flatten([self.encode(t, split_special_tokens) for t in texts])

    def count(self, text: str) -> int:
        added = self._match_all
        if added is None or not added.find_all(text):
            return self._engine.count_ordinary(text)
        return len(self.encode(text, False))

    def with_special_tokens(self, text: str) -> list[int]:
        ids = self.encode(text, False)
        return ids if self.bos_id is None else [self.bos_id, *ids]

    # decode ------------------------------------------------------------------
    def decode(self, ids: Sequence[int], skip_special_tokens: bool) -> str:
        if skip_special_tokens and not self._special_ids.isdisjoint(ids):
            ids = [i for i in ids if i not in self._special_ids]
        return self.decode_bytes(ids).decode("utf-8", errors="replace")

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        if self._added_ids.isdisjoint(ids):
            return self._engine.decode_bytes(ids)
        parts: list[bytes] = []
        run: list[int] = []
        for i in ids:
            if i in self._added_ids:
                if run:
                    parts.append(self._engine.decode_bytes(run))
                    run = []
                parts.append(self._added_bytes[i])
            else:
                run.append(i)
        if run:
            parts.append(self._engine.decode_bytes(run))
        return b"".join(parts)

    # tables ------------------------------------------------------------------
    def token_table(self) -> tuple[dict[int, str], dict[int, bytes]]:
        strings: dict[int, str] = {}
        raw: dict[int, bytes] = {}
        for i, data in self._engine.iter_token_bytes():
            raw[i] = data
            strings[i] = bytes_to_token_string(data)
        for t in self.added_tokens:
            raw[t.id] = t.content.encode()
            strings[t.id] = t.content
        return strings, raw


def _holding(texts: list[str], lead: str | None) -> Iterable[str]:
    """The texts that may hold an added token: those with its first character, where all share one."""
    return texts if lead is None else (t for t in texts if lead in t)
