"""``load_tokenizer``: names, aliases, paths and live objects -> one shared Tokenizer.

Cache rules (each one answers a bug seen in the field):

* Bundled names: a fixed table, so the cache is bounded by construction. Only
  canonical names and declared aliases are ever keys; a spec that is not
  resolved caches nothing, so a million distinct bad names leave memory flat.
* Loading is single-flight: threads asking for the same cold tokenizer wait for
  one load. A failed load is not cached; the next call tries again.
* Paths: keyed by (real path, size, mtime), in a bounded LRU -- the keys come
  from users.
* Objects (transformers / tokenizers / tiktoken): keyed by the object itself,
  weakly. The wrapper never references the object (it works on a private copy
  of its data), so the object can be collected, and its entry goes with it.
  Entries are found by identity, never by a bare ``id()`` (ids are reused).
"""

from __future__ import annotations

import os
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

from ..errors import TokenizerLoadError, ToklaneError, UnknownTokenizerError
from .bundled import (
    BUNDLED,
    FAMILY_BY_RANK_COUNT,
    O200K_HARMONY,
    BundledTokenizer,
    hf_json_tokenizer,
    ranked_tokenizer,
    ranks_engine,
    read_tiktoken_ranks,
    tekken_tokenizer,
)
from .core import Tokenizer
from .files import check_ranks, is_engine_failure, load_json, read_text

PATH_CACHE_SIZE = 32

_BY_NAME: dict[str, BundledTokenizer] = {b.name: b for b in BUNDLED}
_ALIASES: dict[str, str] = {}
for _b in BUNDLED:
    for _spelling in (_b.name, *_b.aliases):
        _ALIASES[_spelling.lower()] = _b.name

# Model-family prefixes of the last path component ("Qwen/Qwen3.5-9B" -> "qwen3.5-9b").
_FAMILY_PREFIXES: tuple[tuple[str, str], ...] = (
    ("qwen3.6", "qwen3.6"),
    ("qwen3.5", "qwen3.6"),
    ("qwen3", "qwen3"),
    ("qwq", "qwen3"),
    ("qwen2.5", "qwen3"),
    ("qwen2", "qwen3"),
    ("deepseek-v4", "deepseek-v4"),
    ("llama-3", "llama3"),
    ("meta-llama-3", "llama3"),
    ("gpt-oss", "o200k_harmony"),
    ("gpt-4o", "o200k_base"),
    ("gpt-4.1", "o200k_base"),
    ("gpt-4.5", "o200k_base"),
    ("gpt-5", "o200k_base"),
    ("chatgpt-4o", "o200k_base"),
    ("o1", "o200k_base"),
    ("o3", "o200k_base"),
    ("o4", "o200k_base"),
    ("gpt-4", "cl100k_base"),
    ("gpt-3.5", "cl100k_base"),
    ("mistral-nemo", "mistral-tekken"),
)


# Anchored alternation in table order (longer prefixes first): linear in the spec, no backtracking.
_FAMILY_RE = re.compile("(" + "|".join(re.escape(p) for p, _ in _FAMILY_PREFIXES) + r")(?:$|[-._])")
_FAMILY_OF = dict(_FAMILY_PREFIXES)


def bundled_names() -> list[str]:
    """Names of the bundled tokenizers."""
    return [b.name for b in BUNDLED]


def bundled_table() -> tuple[BundledTokenizer, ...]:
    """The bundled-tokenizer table (name, aliases, data package, engine)."""
    return BUNDLED


def resolve_name(spec: str) -> str | None:
    """The bundled name a spec refers to, or ``None``. Pure: caches nothing."""
    return _exact_name(spec) or _family_name(spec)


def _exact_name(spec: str) -> str | None:
    """A declared name or alias, also as the last part of a repo id ("org/gpt-4o")."""
    key = spec.strip().lower()
    return _ALIASES.get(key) or _ALIASES.get(key.rsplit("/", 1)[-1])


def _family_name(spec: str) -> str | None:
    """A model id of a known family ("Qwen/Qwen3.5-9B" -> qwen3.6)."""
    match = _FAMILY_RE.match(spec.strip().lower().rsplit("/", 1)[-1])
    return _FAMILY_OF[match.group(1)] if match else None


# --------------------------------------------------------------------------- single flight


class _Flight:
    __slots__ = ("done", "error", "result")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Tokenizer | None = None
        self.error: BaseException | None = None


class _SingleFlight:
    """Run one loader per key at a time; later callers wait for its result.

    The cache is consulted again under the flight lock before a new flight
    starts: a caller that missed the cache just before the previous leader
    stored its result (and retired its flight) finds that result instead of
    loading a second copy. The leader stores before it retires, so every
    caller sees either the flight or the stored result, never neither.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._flights: dict[Hashable, _Flight] = {}

    def run(
        self,
        key: Hashable,
        lookup: Callable[[], Tokenizer | None],
        load: Callable[[], Tokenizer],
        store: Callable[[Tokenizer], Tokenizer],
    ) -> Tokenizer:
        """The cached result (``lookup``), else one ``load`` shared by concurrent callers.

        ``store`` caches a fresh result and returns the one to hand out (an
        entry already cached wins, so a spec never has two live wrappers).
        """
        with self._lock:
            cached = lookup()
            if cached is not None:
                return cached
            flight = self._flights.get(key)
            leader = flight is None
            if leader:
                flight = self._flights[key] = _Flight()
        assert flight is not None
        if not leader:
            flight.done.wait()
            if flight.error is not None:
                raise flight.error
            assert flight.result is not None
            return flight.result
        try:
            flight.result = store(load())
            return flight.result
        except BaseException as exc:
            flight.error = exc
            raise
        finally:
            with self._lock:
                del self._flights[key]
            flight.done.set()


_flights = _SingleFlight()

# --------------------------------------------------------------------------- caches

_cache_lock = threading.Lock()
_named: dict[str, Tokenizer] = {}  # canonical names and declared aliases only
_paths: OrderedDict[tuple[str, int, int], Tokenizer] = OrderedDict()


class _ObjectCache:
    """Wrappers of live objects, keyed by identity and held weakly.

    Each entry keeps a weak reference to its object whose callback removes the
    entry, so an entry never outlives its object and a reused ``id()`` can
    never find a stale wrapper (lookups also check ``ref() is obj``). The lock
    is re-entrant: a weakref callback may run (from the garbage collector) on
    a thread that already holds it.
    """

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[Any], Tokenizer]] = {}
        self._lock = threading.RLock()

    def get(self, obj: Any) -> Tokenizer | None:
        entry = self._entries.get(id(obj))
        if entry is not None and entry[0]() is obj:
            return entry[1]
        return None

    def put(self, obj: Any, tok: Tokenizer) -> Tokenizer:
        """Cache ``tok`` for ``obj`` unless a live entry exists; the cached wrapper."""
        key = id(obj)

        def _drop(ref: weakref.ref[Any], key: int = key) -> None:
            with self._lock:
                entry = self._entries.get(key)
                if entry is not None and entry[0] is ref:
                    del self._entries[key]

        ref = weakref.ref(obj, _drop)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0]() is obj:
                return entry[1]
            self._entries[key] = (ref, tok)
        return tok

    def __len__(self) -> int:
        return len(self._entries)


_objects = _ObjectCache()


def loaded_tokenizer(name: str) -> Tokenizer | None:
    """The bundled tokenizer ``name`` if it is already loaded (never loads it)."""
    return _named.get(name)


def cache_info() -> dict[str, int]:
    """Sizes of the registry caches (for tests and monitoring)."""
    return {"named": len(_named), "paths": len(_paths), "objects": len(_objects)}


# --------------------------------------------------------------------------- entry point


def load_tokenizer(spec: Any) -> Tokenizer:
    """The shared :class:`Tokenizer` for ``spec``.

    ``spec`` is a bundled name or alias (``"qwen3.6"``, ``"Qwen/Qwen3.6-27B"``,
    ``"gpt-4o"``), a path (``tokenizer.json``, a HF tokenizer folder, a
    ``.tiktoken`` file, a Mistral ``tekken.json``), or a live object (a
    transformers fast tokenizer, ``tokenizers.Tokenizer``, ``tiktoken.Encoding``,
    or a toklane ``Tokenizer``). The same spec returns the same object.
    Exact names and aliases win over same-named local paths; existing paths win
    over family-prefix guesses ("./qwen3_model/" is a folder, not Qwen3).
    """
    if isinstance(spec, Tokenizer):
        return spec
    if isinstance(spec, str):
        tok = _named.get(spec)
        if tok is not None:
            return tok
        name = _exact_name(spec)
        if name is not None:
            return _load_bundled(name)
        if os.path.exists(spec):
            return _load_path(Path(spec))
        name = _family_name(spec)
        if name is not None:
            return _load_bundled(name)
        raise UnknownTokenizerError(spec, _BY_NAME)
    if isinstance(spec, os.PathLike):
        path = Path(os.fspath(spec))
        if not path.exists():
            raise TokenizerLoadError(spec, "no such file or directory")
        return _load_path(path)
    return _load_object(spec)


def _load_bundled(name: str) -> Tokenizer:
    tok = _named.get(name)
    if tok is not None:
        return tok
    entry = _BY_NAME[name]

    def store(tok: Tokenizer) -> Tokenizer:
        with _cache_lock:
            tok = _named.setdefault(entry.name, tok)
            for spelling in (entry.name, *entry.aliases):
                _named[spelling] = tok
                _named[spelling.lower()] = tok
        return tok

    return _flights.run(("bundled", name), lambda: _named.get(name), lambda: entry.load(entry.aliases), store)


# --------------------------------------------------------------------------- paths


def _load_path(path: Path) -> Tokenizer:
    try:
        real = path.resolve(strict=True)
        target = _pick_file(real)
        st = target.stat()
    except OSError as exc:
        raise TokenizerLoadError(str(path), f"cannot read it ({exc.strerror or exc})") from None
    key = (str(target), st.st_size, st.st_mtime_ns)

    def lookup() -> Tokenizer | None:
        with _cache_lock:
            tok = _paths.get(key)
            if tok is not None:
                _paths.move_to_end(key)
            return tok

    tok = lookup()
    if tok is not None:
        return tok

    def store(tok: Tokenizer) -> Tokenizer:
        with _cache_lock:
            tok = _paths.setdefault(key, tok)
            _paths.move_to_end(key)
            while len(_paths) > PATH_CACHE_SIZE:
                _paths.popitem(last=False)
        return tok

    return _flights.run(("path", key), lookup, lambda: _read_path(target, str(path)), store)


def _pick_file(path: Path) -> Path:
    """The tokenizer file to read: the path itself, or the known file in a folder."""
    if not path.is_dir():
        return path
    for candidate in ("tokenizer.json", "tekken.json"):
        if (path / candidate).is_file():
            return path / candidate
    tiktoken_files = sorted(path.glob("*.tiktoken"))
    if len(tiktoken_files) == 1:
        return tiktoken_files[0]
    raise TokenizerLoadError(str(path), "folder has no tokenizer.json, tekken.json or single .tiktoken file")


def _read_path(target: Path, spec: str) -> Tokenizer:
    """Read a tokenizer file: a regular file within the size cap, validated before
    any engine is built (:mod:`toklane.tokenizer.files`)."""
    name = spec
    if target.suffix == ".json":
        text = read_text(target, str(target))
        data = load_json(text, str(target), "tokenizer.json or tekken.json")
        if target.name.startswith("tekken") or (isinstance(data, dict) and "model" not in data and "config" in data):
            return tekken_tokenizer(name, target, data=data)
        return hf_json_tokenizer(name, text, source=str(target), parsed=data)
    return _read_tiktoken_file(target, spec)


def _read_tiktoken_file(target: Path, spec: str) -> Tokenizer:
    ranks = read_tiktoken_ranks(target, spec)
    known = FAMILY_BY_RANK_COUNT.get(len(ranks))
    if known is None:
        sizes = ", ".join(f"{n} ({fam})" for n, (fam, _) in sorted(FAMILY_BY_RANK_COUNT.items()))
        raise TokenizerLoadError(
            spec,
            f"a .tiktoken file with {len(ranks)} ranks is not a known family; its pre-tokenisation "
            f"pattern and special tokens cannot be inferred (known sizes: {sizes}). "
            "Pass a tiktoken.Encoding object instead.",
        )
    family_name, family = known
    if family_name == "o200k_base" and "harmony" in target.name:
        family = O200K_HARMONY
    engine = ranks_engine(spec, family.pattern, ranks, source=spec, nfc=family.nfc)
    return ranked_tokenizer(spec, family, engine, ordinary_ids=range(len(ranks)), source=str(target))


# --------------------------------------------------------------------------- objects


def _load_object(obj: Any) -> Tokenizer:
    try:
        weakref.ref(obj)
    except TypeError:
        raise TokenizerLoadError(obj, f"unsupported tokenizer type {type(obj).__qualname__}") from None
    tok = _objects.get(obj)
    if tok is not None:
        return tok
    build = _object_builder(obj)  # raises for unsupported types before any state exists

    def store(tok: Tokenizer) -> Tokenizer:
        return _objects.put(obj, tok)

    # The object is alive (the caller holds it) for as long as its flight exists,
    # so its id cannot be reused by another object during the load.
    return _flights.run(("object", id(obj)), lambda: _objects.get(obj), build, store)


def _object_builder(obj: Any) -> Callable[[], Tokenizer]:
    """How to wrap ``obj`` -- reading only what the wrapper needs, never keeping ``obj``."""
    label = f"<{type(obj).__module__}.{type(obj).__qualname__} object>"
    try:
        from tokenizers import Tokenizer as HFTokenizer
    except ImportError:  # pragma: no cover - tokenizers is a core dependency
        HFTokenizer = None  # type: ignore[assignment,misc]
    backend_tok = getattr(obj, "backend_tokenizer", None) if not isinstance(obj, type) else None
    # Serialising is the costly part: only the flight's leader does it.
    if HFTokenizer is not None and isinstance(obj, HFTokenizer):
        return lambda: hf_json_tokenizer(label, _to_str(obj, label), source=label)
    if HFTokenizer is not None and isinstance(backend_tok, HFTokenizer):
        name = getattr(obj, "name_or_path", "") or label
        return lambda: hf_json_tokenizer(str(name), _to_str(backend_tok, label), source=label)
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - tiktoken is a core dependency
        tiktoken = None  # type: ignore[assignment]
    if tiktoken is not None and isinstance(obj, tiktoken.Encoding):
        return _tiktoken_builder(obj)
    if hasattr(obj, "convert_tokens_to_ids") and hasattr(obj, "encode"):
        raise TokenizerLoadError(
            label, "a slow (pure-Python) transformers tokenizer; load it with use_fast=True or pass its tokenizer.json"
        )
    raise TokenizerLoadError(
        label,
        "unsupported tokenizer type; pass a bundled name, a path, a transformers fast tokenizer, "
        "a tokenizers.Tokenizer or a tiktoken.Encoding",
    )


def _to_str(tok: Any, label: str) -> str:
    """``tokenizers.Tokenizer.to_str()``, with its failures as :class:`TokenizerLoadError`."""
    try:
        return tok.to_str()
    except BaseException as exc:
        if not is_engine_failure(exc):
            raise
        raise TokenizerLoadError(label, f"cannot serialise the tokenizer ({type(exc).__name__}: {exc})") from None


def _tiktoken_builder(enc: Any) -> Callable[[], Tokenizer]:
    from .backends import AddedToken
    from .bundled import RankedFamily

    name = enc.name
    pattern = enc._pat_str
    ranks = enc._mergeable_ranks
    specials = dict(enc._special_tokens)

    def build() -> Tokenizer:
        check_ranks(ranks, name, "tiktoken.Encoding ranks")
        by_id: dict[int, str] = {}
        for text, i in sorted(specials.items()):
            by_id.setdefault(i, text)
        extra = {t: i for t, i in specials.items() if by_id[i] != t}
        added = [AddedToken(t, i) for i, t in sorted(by_id.items())]
        eos = tuple(t for t in ("<|endoftext|>",) if t in specials)
        family = RankedFamily(pattern, lambda: added, eos=eos)
        engine = ranks_engine(name, pattern, ranks, source=f"tiktoken.Encoding {name!r}")
        return ranked_tokenizer(
            name,
            family,
            engine,
            ordinary_ids=range(len(ranks)),
            source=f"tiktoken.Encoding {name!r}",
            extra_spellings=extra,
        )

    return build


__all__ = [
    "ToklaneError",
    "bundled_names",
    "bundled_table",
    "cache_info",
    "load_tokenizer",
    "loaded_tokenizer",
    "resolve_name",
]
