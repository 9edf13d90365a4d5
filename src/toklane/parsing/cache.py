"""The parsers' per-tokenizer caches, keyed weakly by the :class:`~toklane.Tokenizer` object itself.

Two tables: the :class:`~toklane.parsing.tables.Tables` of each format pair (:func:`tables_for`) and
:func:`toklane.get_parser`'s prototypes (:func:`prototypes_for`). An entry lives as long as its
tokenizer and no longer: nothing cached here holds the tokenizer (tables keep a weak reference to
it; prototypes keep no tokenizer), and a weak-reference callback drops the tokenizer's entries when
it is freed. Never keyed by ``id()`` (reused after collection) nor kept as attributes on the
tokenizer (which is shared and read-only).

A warm lookup is one dictionary read keyed by the tokenizer's basic weak reference:
``weakref.ref(tok)`` returns that same object while the key holds it, so the read hits by identity.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..tokenizer import Tokenizer
    from .tables import Tables

#: Per tokenizer (its basic weak reference): format-pair key -> tables.
TABLES: dict[weakref.ref[Any], dict[Any, Tables]] = {}
#: Per tokenizer (its basic weak reference): get_parser's arguments -> (class, starting state, reader).
PROTOTYPES: dict[weakref.ref[Any], dict[tuple[Any, ...], tuple[type, dict[str, Any], Any]]] = {}
# Per tokenizer: the weak reference whose callback forgets its entries (kept alive here).
_GUARDS: dict[weakref.ref[Any], weakref.ref[Any]] = {}
_lock = threading.Lock()


def _forget(key: weakref.ref[Any], _guard: weakref.ref[Any]) -> None:
    """A tokenizer was freed: drop its entries (single dictionary operations: no lock needed)."""
    TABLES.pop(key, None)
    PROTOTYPES.pop(key, None)
    _GUARDS.pop(key, None)


def _entry(table: dict[weakref.ref[Any], dict[Any, Any]], tok: Tokenizer) -> dict[Any, Any]:
    """``tok``'s dictionary in ``table``, made on first use. Call with :data:`_lock` held."""
    key = weakref.ref(tok)
    per_tok = table.get(key)
    if per_tok is None:
        per_tok = table[key] = {}
        if key not in _GUARDS:
            _GUARDS[key] = weakref.ref(tok, functools.partial(_forget, key))
    return per_tok


def tables_for(tok: Tokenizer, key: Any, build: Callable[[], Tables]) -> Tables:
    """The tables of ``tok`` for ``key``, built by ``build()`` once (single-flight; failures are not cached)."""
    with _lock:
        per_tok = _entry(TABLES, tok)
        tables = per_tok.get(key)
        if tables is None:
            tables = per_tok[key] = build()
        return tables


def cached_tables(tok: Tokenizer) -> dict[Any, Tables]:
    """The tables cached for ``tok`` so far (a copy), by key."""
    return dict(TABLES.get(weakref.ref(tok), ()))


def keep_prototype(tok: Tokenizer, key: tuple[Any, ...], entry: tuple[type, dict[str, Any], Any]) -> None:
    """Keep ``entry`` as ``tok``'s prototype for ``key`` (what :func:`prototypes_for` returns)."""
    with _lock:
        _entry(PROTOTYPES, tok)[key] = entry


def prototypes_for(tok: Tokenizer) -> dict[tuple[Any, ...], tuple[type, dict[str, Any], Any]]:
    """``tok``'s prototypes (the live dictionary; empty and not kept if it has none)."""
    return PROTOTYPES.get(weakref.ref(tok), {})
