"""Markers, and the per-tokenizer tables a parser reads them with.

A :class:`Marker` is a fixed string with a role in a format (``<think>``:
``reasoning_start``). ``token=True`` markers are added tokens in every
tokenizer of their family: a tokenizer that lacks one cannot be parsed with
that format (a clear error at setup), and in token ids they are matched by id
only. ``token=False`` markers are text: matched by id where the tokenizer
happens to have them as one added token, and otherwise on the bytes of
ordinary tokens, so every spelling and every split is found (``</think>`` in
cl100k is ``" </" "think" ">\\n"``).

Tables are built once per (tokenizer, reasoning format, tool format) from the
tokenizer's cached added-token list and byte table -- never by encoding or
decoding -- and cached weakly by the tokenizer object itself (:mod:`.cache`).

A marker text may hold the placeholder ``{suffix}`` (:data:`SUFFIX`) for a
per-checkpoint token suffix (Hunyuan HY-V3 spells ``<think:opensource>`` in one
checkpoint and ``<think>`` in another): it is resolved when the tables are
built, from the tokenizer's added tokens (:func:`resolve_suffix`), and the
resolved texts are what is matched, in ids and in text.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import MissingTokenError
from ..gather import IdTable
from ..streammatch import Automaton
from .types import ParseResult

if TYPE_CHECKING:
    from ..tokenizer import Tokenizer


#: Placeholder in a marker text for the tokenizer's token suffix (see :func:`resolve_suffix`).
SUFFIX = "{suffix}"


@dataclass(frozen=True, slots=True)
class Marker:
    """A fixed string with a role in a format.

    ``text`` may hold :data:`SUFFIX` once: the tables of a tokenizer substitute the
    suffix its added tokens carry (:func:`resolve_suffix`; formats without it are
    unaffected).
    """

    role: str
    text: str
    token: bool = True


def resolve_suffix(templates: dict[str, str], added: Collection[str], tokenizer_name: str) -> str:
    """The token suffix ``S`` for which every template (a text holding :data:`SUFFIX`, mapped to
    what it is needed for) with ``S`` substituted is one of the ``added`` token texts.

    A unique non-empty ``S`` is preferred; ``""`` when the plain spellings are the added tokens.
    No fit raises :class:`~toklane.MissingTokenError` naming the first template that rules every
    suffix out; several non-empty fits and no plain one raise ``ValueError``. Cost: one pass over
    ``added`` (once per tokenizer and format pair: the callers cache what they build with it).
    """
    candidates: set[str] | None = None
    for template, purpose in templates.items():
        if candidates is None:
            head, _, tail = template.partition(SUFFIX)
            least = len(head) + len(tail)
            candidates = {
                t[len(head) : len(t) - len(tail)]
                for t in added
                if len(t) >= least and t.startswith(head) and t.endswith(tail)
            }
        else:
            candidates = {c for c in candidates if template.replace(SUFFIX, c) in added}
        if not candidates:
            raise MissingTokenError(template, tokenizer_name, purpose)
    if candidates is None:
        return ""
    named = sorted(c for c in candidates if c)
    if len(named) == 1:
        return named[0]
    if "" in candidates:
        return ""
    raise ValueError(f"tokenizer {tokenizer_name!r} has the markers {list(templates)} with several suffixes: {named}")


def _with_suffix(
    markers: list[Marker], added: Collection[str], tokenizer_name: str, purpose: dict[str, str]
) -> list[Marker]:
    """``markers`` with :data:`SUFFIX` resolved: the added-token markers (``token=True``) decide it;
    text markers only take it (``""`` when no added-token marker holds the placeholder)."""
    templates = {m.text: purpose.get(m.role, m.role) for m in markers if m.token and SUFFIX in m.text}
    suffix = resolve_suffix(templates, added, tokenizer_name)
    return [Marker(m.role, m.text.replace(SUFFIX, suffix), m.token) if SUFFIX in m.text else m for m in markers]


#: Pattern index of the text automaton that stands for "an added special token that is no marker".
DROP = -1

#: The roles the compiled cut of a reasoning-only output knows (Automaton.split_plain); any other is 0.
_SPLIT_ROLES = {"reasoning_start": 1, "reasoning_end": 2}


class Tables:
    """Everything a parser needs from one tokenizer for one pair of formats. Shared, read-only.

    Marker texts holding :data:`SUFFIX` are resolved here, once per tokenizer and format pair;
    ``texts`` holds the resolved spellings.
    """

    __slots__ = (
        "__weakref__",
        "byte_automaton",
        "byte_roles",
        "drop_ids",
        "id_roles",
        "id_table",
        "owner",
        "plain_splits",
        "plain_texts",
        "roles",
        "special_ids",
        "text_automaton",
        "text_in_bytes",
        "text_names",
        "text_roles",
        "texts",
        "token_table",
        "tokenizer_name",
        "vocab_size",
    )

    def __init__(
        self, tok: Tokenizer, markers: Iterable[Marker], purpose: dict[str, str], keep: frozenset[str] = frozenset()
    ):
        markers = list(markers)
        if any(SUFFIX in m.text for m in markers):
            markers = _with_suffix(markers, tok.special_tokens.keys(), tok.name, purpose)
        by_text: dict[str, Marker] = {}
        for m in markers:
            seen = by_text.get(m.text)
            if seen is not None and seen.role != m.role:
                raise ValueError(f"marker {m.text!r} has two roles: {seen.role!r} and {m.role!r}")
            if seen is None or m.token:
                by_text[m.text] = m
        ordered = list(by_text.values())
        self.texts: tuple[str, ...] = tuple(m.text for m in ordered)
        self.roles: tuple[str, ...] = tuple(m.role for m in ordered)
        self.tokenizer_name = tok.name
        #: The tokenizer, weakly (the tables are cached by it): what a reader with none at hand
        #: loads the lazy tables from.
        self.owner: weakref.ref[Tokenizer] = weakref.ref(tok)
        added = tok.special_tokens  # every added token: content -> id
        id_roles: dict[int, int] = {}
        byte_patterns: list[bytes] = []
        byte_roles: list[int] = []
        for index, m in enumerate(ordered):
            token_id = added.get(m.text)
            if token_id is not None:
                id_roles[token_id] = index
            elif m.token:
                raise MissingTokenError(m.text, tok.name, purpose.get(m.role, m.role))
            if not m.token:
                byte_patterns.append(m.text.encode())
                byte_roles.append(index)
        self.id_roles = id_roles
        # Added tokens flagged special that are no marker are dropped, as decode(skip_special_tokens=True) does
        # (except ``keep``: pieces of text markers, read as text).
        drops = [
            t for t in tok.added_tokens if t.special and t.id not in id_roles and t.content and t.content not in keep
        ]
        self.drop_ids = frozenset(t.id for t in drops)
        self.special_ids = self.drop_ids | frozenset(id_roles)  # ids that are no ordinary token's text
        marker_texts = set(self.texts)
        drop_texts = sorted({t.content for t in drops} - marker_texts)
        self.text_automaton: Automaton[str] = Automaton([*self.texts, *drop_texts])
        n = len(self.texts)
        self.text_roles: tuple[int, ...] = tuple(range(n)) + (DROP,) * len(drop_texts)
        #: Per text-automaton pattern: its marker's role, or "" (a dropped token) -- one lookup.
        self.text_names: tuple[str, ...] = (*self.roles, *[""] * len(drop_texts))
        self.byte_automaton: Automaton[bytes] | None = Automaton(byte_patterns) if byte_patterns else None
        self.byte_roles: tuple[int, ...] = tuple(byte_roles)
        # Per text-automaton pattern: whether ordinary tokens spelling it are read as that marker
        # from ids too (a text marker); else only its special token is (a token marker, a dropped token).
        in_bytes = set(byte_roles)
        self.text_in_bytes: tuple[bool, ...] = tuple(r >= 0 and r in in_bytes for r in self.text_roles)
        self.vocab_size = tok.vocab_size
        self.token_table: tuple[bytes | None, ...] | None = None  # filled on the first ids feed
        self.plain_texts: list[str | bool | None] | None = None  # per id, on the first one-token ids feed
        self.id_table: IdTable | None = None  # on the first long ids feed
        self.plain_splits: dict[tuple[bool, bool], Callable[..., ParseResult | None] | None] = {}  # plain_split's

    def plain_split(self, in_reasoning: bool, may_open: bool) -> Callable[..., ParseResult | None] | None:
        """The compiled cut of a reasoning-only output of a usual shape by these markers into its
        :class:`ParseResult` (:meth:`.Automaton.split_plain`), made once per starting state:
        ``in_reasoning``, whether the output starts inside reasoning; ``may_open``, whether a start
        marker first thing opens it where it does not. None where the scan is not compiled."""
        key = (in_reasoning, may_open)
        splits = self.plain_splits
        if key not in splits:  # (two threads may both make it: the same value)
            roles = bytes(_SPLIT_ROLES.get(name, 0) for name in self.text_names)
            splits[key] = self.text_automaton.split_plain(roles, in_reasoning, may_open, ParseResult)
        return splits[key]

    def _owner(self) -> Tokenizer:
        tok = self.owner()
        if tok is None:  # (a parser holds its tokenizer: only a reader past its tokenizer's life gets here)
            raise RuntimeError(f"the tokenizer {self.tokenizer_name!r} of these parser tables was freed")
        return tok

    def load_token_table(self, tok: Tokenizer | None = None) -> tuple[bytes | None, ...]:
        table = self.token_table
        if table is None:
            table = self.token_table = (tok if tok is not None else self._owner()).token_bytes_table
        return table

    def load_plain_texts(self, tok: Tokenizer | None = None) -> list[str | bool | None]:
        """Per id, the text a stream reads for it one token at a time: ``None`` until a stream first
        reads it (:meth:`learn_text`), ``False`` for a marker, a dropped token, or bytes that are
        no whole characters (the per-token path reads those). Made on the first ids stream of this
        format pair (one list slot per id), then shared: a token is decoded once, not once per step."""
        texts = self.plain_texts
        if texts is None:
            with _lock:
                texts = self.plain_texts
                if texts is None:
                    n = min(len(self.load_token_table(tok)), self.vocab_size)
                    made: list[str | bool | None] = [None] * n
                    for t in self.special_ids:
                        if 0 <= t < n:
                            made[t] = False
                    texts = self.plain_texts = made
        return texts

    def learn_text(self, t: int) -> str | bool:
        """Decode token ``t`` (in range, no marker, not yet read) into :attr:`plain_texts`: its text,
        or ``False`` for bytes that are no whole characters, a hole, an empty token, or bytes that
        may start a text marker (the byte matcher reads those)."""
        data = self.token_table[t]  # type: ignore[index]  # loaded with plain_texts
        text: str | bool = False
        if data and (self.byte_automaton is None or not self.byte_automaton.may_start(data)):
            with contextlib.suppress(UnicodeDecodeError):
                text = data.decode()
        self.plain_texts[t] = text  # type: ignore[index]
        return text

    def load_id_table(self, tok: Tokenizer | None = None) -> IdTable:
        """What :func:`toklane.gather.runs` reads for this format pair, made on its first
        feed of many ids: the tokenizer's part once (O(vocabulary)), this pair's a copy of it."""
        ids = self.id_table
        if ids is None:
            with _lock:
                ids = self.id_table
                if ids is None:
                    owner = tok if tok is not None else self._owner()
                    ids = self.id_table = IdTable(owner, self.id_roles, self.drop_ids, self.vocab_size)
        return ids


_lock = threading.Lock()
