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

import difflib
import itertools
import json
import os
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

from ..errors import TokenizerLoadError, ToklaneError, UnknownTokenizerError, json_kind
from .assembly import ranked_tokenizer, ranks_engine
from .bundled import BUNDLED, FAMILY_BY_RANK_COUNT, O200K_HARMONY, BundledTokenizer
from .bundled_loaders import load_bundled
from .core import Tokenizer
from .files import check_ranks, is_engine_failure, load_json, read_head, read_text
from .user_files import (
    hf_json_tokenizer,
    read_tiktoken_ranks,
    seen_tokenizer_json,
    sentencepiece_tokenizer,
    tekken_tokenizer,
)

PATH_CACHE_SIZE = 32

_BY_NAME: dict[str, BundledTokenizer] = {b.name: b for b in BUNDLED}
_ALIASES: dict[str, str] = {}
_SPELLINGS: dict[str, str] = {}  # lower-cased name or alias -> its declared spelling (for suggestions)
for _b in BUNDLED:
    for _spelling in (_b.name, *_b.aliases):
        _ALIASES[_spelling.lower()] = _b.name
        _SPELLINGS.setdefault(_spelling.lower(), _spelling)

#: Endings that make a string a path, not a model name.
_PATH_SUFFIXES = (".json", ".jsonl", ".tiktoken", ".model", ".txt", ".bin", ".vocab")

#: What a path must hold (said by every "this is not a tokenizer file" error).
EXPECTED = (
    "expected a tokenizer.json, a Mistral tekken.json, a .tiktoken ranks file, a SentencePiece .model file "
    "or a HF tokenizer folder"
)

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


# Families whose vocabulary differs from every bundled one, though a bundled one looks close: their
# repo ids are answered with why and which file to pass, never mapped by name (vocabulary facts).
_NOT_BUNDLED: tuple[tuple[str, str], ...] = (
    ("deepseek-r1-distill-qwen", "its vocabulary is Qwen2.5's with its own <think> ids, not the bundled qwen3's"),
    ("deepseek-r1-distill-llama", "its vocabulary is Llama 3's with its own added tokens, not the bundled llama3's"),
    (
        "deepseek-r1",
        "its added tokens differ from the bundled deepseek-v4's (which holds <think> at 128821, DSML and file tokens)",
    ),
    (
        "deepseek-v3",
        "its added tokens differ from the bundled deepseek-v4's (DeepSeek-V3's end at 128814 <｜tool▁sep｜>; "
        "deepseek-v4 adds <think> at 128821, DSML and file tokens)",
    ),
    ("deepseek-v2", "its vocabulary is not bundled (the bundled deepseek-v4's differs)"),
    ("llama-2", "a SentencePiece vocabulary that is not bundled"),
    ("gemma", "a SentencePiece vocabulary that is not bundled"),
    ("phi-", "a vocabulary that is not bundled"),
)
_NOT_BUNDLED_RE = re.compile("(" + "|".join(re.escape(p) for p, _ in _NOT_BUNDLED) + ")")
_NOT_BUNDLED_WHY = dict(_NOT_BUNDLED)


class NotBundledError(UnknownTokenizerError):
    """A model id of a known family whose vocabulary is not bundled: says why, and which file to pass."""

    def __init__(self, spec: str, known: Any, why: str):
        super().__init__(spec, known)
        self.why = why

    def __str__(self) -> str:
        return (
            f"tokenizer {self.spec!r} is not bundled: {self.why}; pass the model's own tokenizer file or its "
            "folder (load_tokenizer('path/to/model/') reads tokenizer.json, tokenizer.model or tekken.json)"
        )


def _not_bundled(spec: str) -> str | None:
    """Why a model id of a known family is not served by a bundled vocabulary, or None."""
    match = _NOT_BUNDLED_RE.match(spec.strip().lower().rsplit("/", 1)[-1])
    return _NOT_BUNDLED_WHY[match.group(1)] if match else None


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


def suggest_names(spec: str, n: int = 3) -> list[str]:
    """The bundled names and aliases nearest to ``spec`` ("gpt4o" -> ["gpt-4o", ...]), best first.

    Pure and bounded: specs longer than 100 characters get no suggestions (difflib
    is quadratic in the length).
    """
    key = spec.strip().lower()
    if not key or len(key) > 100:
        return []
    matches: list[str] = []
    for probe in dict.fromkeys((key, key.rsplit("/", 1)[-1])):
        matches += difflib.get_close_matches(probe, _SPELLINGS, n=12, cutoff=0.6)
    # One spelling per bundled tokenizer: its own name when that is among the matches.
    best: dict[str, str] = {}
    for match in matches:
        canonical = _ALIASES[match]
        if canonical not in best or match == canonical.lower():
            best[canonical] = _SPELLINGS[match]
    return list(best.values())[:n]


def _looks_like_path(spec: str) -> bool:
    """Whether a string that names nothing bundled was meant as a path: it has a
    backslash, starts like a path, ends with ``/`` or a tokenizer-file ending, has
    two slashes or more, or its first part is a local folder. A bare ``org/name`` is
    a model id."""
    s = spec.strip()
    if "\\" in s or s.startswith(("/", "./", "../", "~")) or s.endswith("/") or s.count("/") > 1:
        return True
    if s.lower().endswith(_PATH_SUFFIXES):
        return True
    return "/" in s and os.path.isdir(s.split("/", 1)[0])


# Files of a HF model folder that are never the tokenizer (not suggested for a mistyped path).
_NOT_TOKENIZERS = frozenset(
    ("tokenizer_config.json", "special_tokens_map.json", "config.json", "generation_config.json", "added_tokens.json")
)


def _no_such_path(spec: object, path: str) -> TokenizerLoadError:
    """'no such file or folder', with the nearest names in its folder when that exists."""
    parent, name = os.path.split(os.path.expanduser(path.rstrip("/\\")) or path)
    parent = parent or "."
    hint = ""
    try:
        with os.scandir(parent) as entries:
            names = [e.name for e in itertools.islice(entries, 2000)]
    except OSError:
        if parent != ".":
            hint = f" (its folder {parent!r} does not exist either)"
    else:
        names = [n for n in names if n not in _NOT_TOKENIZERS]
        close = difflib.get_close_matches(name, names, n=2, cutoff=0.6) if len(name) <= 200 else []
        if close:
            hint = "; did you mean " + " or ".join(repr(os.path.join(parent, c)) for c in close) + "?"
    return TokenizerLoadError(spec, f"no such file or folder{hint}")


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


Fresh = Callable[[Any], bool]


class _ObjectCache:
    """Wrappers of live objects, keyed by identity and held weakly.

    Each entry keeps a weak reference to its object whose callback removes the
    entry, so an entry never outlives its object and a reused ``id()`` can
    never find a stale wrapper (lookups also check ``ref() is obj``). The lock
    is re-entrant: a weakref callback may run (from the garbage collector) on
    a thread that already holds it.

    Objects that can change (HF tokenizers gain tokens) carry a ``fresh`` test,
    O(1), run on every lookup: an entry whose object changed is not returned,
    so the caller wraps the object again and the new wrapper replaces it.
    """

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[Any], Tokenizer, Fresh | None]] = {}
        self._lock = threading.RLock()

    def get(self, obj: Any) -> Tokenizer | None:
        entry = self._entries.get(id(obj))
        if entry is None or entry[0]() is not obj:
            return None
        fresh = entry[2]
        if fresh is None:
            return entry[1]
        try:
            if fresh(obj):
                return entry[1]
        except Exception:  # an object that no longer answers the probe: wrap it again
            pass
        return None

    def put(self, obj: Any, tok: Tokenizer, fresh: Fresh | None = None, *, replace: bool = False) -> Tokenizer:
        """Cache ``tok`` for ``obj`` unless a live, fresh entry exists (or ``replace``); the cached wrapper."""
        key = id(obj)

        def _drop(ref: weakref.ref[Any], key: int = key) -> None:
            with self._lock:
                entry = self._entries.get(key)
                if entry is not None and entry[0] is ref:
                    del self._entries[key]

        ref = weakref.ref(obj, _drop)
        with self._lock:
            entry = self._entries.get(key)
            if not replace and entry is not None and entry[0]() is obj and _is_fresh(entry[2], obj):
                return entry[1]
            self._entries[key] = (ref, tok, fresh)
        return tok

    def __len__(self) -> int:
        return len(self._entries)


def _is_fresh(fresh: Fresh | None, obj: Any) -> bool:
    if fresh is None:
        return True
    try:
        return fresh(obj)
    except Exception:  # an object that no longer answers the probe: wrap it again
        return False


_objects = _ObjectCache()


def loaded_tokenizer(name: str) -> Tokenizer | None:
    """The bundled tokenizer ``name`` if it is already loaded (never loads it)."""
    return _named.get(name)


def cache_info() -> dict[str, int]:
    """Sizes of the registry caches (for tests and monitoring)."""
    return {"named": len(_named), "paths": len(_paths), "objects": len(_objects)}


# --------------------------------------------------------------------------- entry point


def load_tokenizer(spec: Any, *, refresh: bool = False) -> Tokenizer:
    """The shared :class:`Tokenizer` for ``spec``.

    ``spec`` is a bundled name or alias (``"qwen3.6"``, ``"Qwen/Qwen3.6-27B"``,
    ``"gpt-4o"``), a path (``tokenizer.json``, a HF tokenizer folder, a
    ``.tiktoken`` file, a Mistral ``tekken.json``), or a live object (a
    transformers fast tokenizer, ``tokenizers.Tokenizer``, ``tiktoken.Encoding``,
    or a toklane ``Tokenizer``). The same spec returns the same object.
    Exact names and aliases win over same-named local paths; existing paths win
    over family-prefix guesses ("./qwen3_model/" is a folder, not Qwen3).

    A live object's wrapper is a snapshot. Each lookup checks in O(1) that the
    object has gained no token since (``add_tokens`` / ``add_special_tokens`` of a
    new string, or a transformers tokenizer given a new backend) and wraps it again
    if it has. Changes that add no id (re-adding a string already in the vocabulary,
    replacing the normalizer or pre-tokenizer in place) cannot be seen cheaply:
    pass ``refresh=True`` after making them to wrap the object again.
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
        if "\x00" in spec:  # os functions refuse it with a bare ValueError
            raise TokenizerLoadError(spec, "is not a tokenizer name or path: it holds a NUL character")
        if spec.startswith("~") and os.path.exists(os.path.expanduser(spec)):
            return _load_path(Path(os.path.expanduser(spec)))
        name = _family_name(spec)
        if name is not None:
            return _load_bundled(name)
        if _looks_like_path(spec):
            raise _no_such_path(spec, spec)
        why = _not_bundled(spec)
        if why is not None:
            raise NotBundledError(spec, _BY_NAME, why)
        raise UnknownTokenizerError(spec, _BY_NAME, suggest_names(spec))
    tok = _objects.get(spec)  # before the PathLike test, an ABC check that costs more than this lookup
    if tok is not None and not refresh:
        return tok
    if isinstance(spec, os.PathLike):
        path = Path(os.fspath(spec))
        if not path.exists():
            raise _no_such_path(spec, str(path))
        return _load_path(path)
    return _load_object(spec, refresh)


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

    return _flights.run(("bundled", name), lambda: _named.get(name), lambda: load_bundled(entry), store)


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
    try:
        with os.scandir(path) as entries:
            names = sorted(e.name for e in itertools.islice(entries, 2000))
    except OSError as exc:
        raise TokenizerLoadError(str(path), f"cannot list the folder ({exc.strerror or exc})") from None
    tiktoken_files = [n for n in names if n.endswith(".tiktoken")]
    if len(tiktoken_files) == 1:
        return path / tiktoken_files[0]
    if not tiktoken_files:
        model_files = [n for n in names if n.endswith(".model")]
        if "tokenizer.model" in model_files:
            return path / "tokenizer.model"
        if len(model_files) == 1:
            return path / model_files[0]
    raise TokenizerLoadError(str(path), _folder_problem(names, tiktoken_files))


def _folder_problem(names: list[str], tiktoken_files: list[str]) -> str:
    """Why a folder holds no loadable tokenizer, naming what it does hold."""
    if tiktoken_files:
        shown = ", ".join(tiktoken_files[:4]) + (", ..." if len(tiktoken_files) > 4 else "")
        return f"folder holds {len(tiktoken_files)} .tiktoken files ({shown}); pass the path of one of them"
    convert = (
        "save it as tokenizer.json with transformers "
        "(AutoTokenizer.from_pretrained(folder).save_pretrained(folder)) or pass the loaded fast tokenizer object"
    )
    has = set(names)
    models = [n for n in names if n.endswith(".model")]
    if models:
        shown = ", ".join(models[:4]) + (", ..." if len(models) > 4 else "")
        return f"folder holds {len(models)} SentencePiece .model files ({shown}); pass the path of one of them"
    if "vocab.json" in has and "merges.txt" in has:
        return f"folder has vocab.json + merges.txt (a slow GPT-2-style tokenizer) but no tokenizer.json; {convert}"
    if "tokenizer_config.json" in has:
        return f"folder has tokenizer_config.json but no tokenizer.json; {convert}"
    found = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "") if names else "nothing"
    return f"folder has no tokenizer.json, tekken.json or single .tiktoken file (found: {found}); {EXPECTED}"


def _read_path(target: Path, spec: str) -> Tokenizer:
    """Read a tokenizer file: a regular file within the size cap, validated before
    any engine is built (:mod:`toklane.tokenizer.files`). The format is told from
    the file's name and first bytes; a file of no known format says what it holds."""
    name = spec
    head = read_head(target, str(target))
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    suffix = target.suffix.lower()
    if not start and suffix not in (".json", ".tiktoken"):  # those get their format's own error
        raise TokenizerLoadError(str(target), f"found an empty file; {EXPECTED}")
    if suffix == ".json" or (start in (b"{", b"[") and suffix != ".tiktoken"):
        text = read_text(target, str(target))
        if target.name == "tokenizer.json":
            seen = seen_tokenizer_json(name, text, str(target))  # (its checked skeleton in the disk cache)
            if seen is not None:
                return seen
        if suffix == ".json":
            data = load_json(text, str(target), "tokenizer.json or tekken.json")
        else:
            data = _json_or_none(text)
            if data is None:
                raise TokenizerLoadError(str(target), f"found {_describe_json_text(text)}; {EXPECTED}")
        if target.name.startswith("tekken") or (isinstance(data, dict) and "model" not in data and "config" in data):
            return tekken_tokenizer(name, target, data=data)
        if target.name == "tokenizer.json" or (isinstance(data, dict) and not _HF_KEYS.isdisjoint(data)):
            remember = target.name == "tokenizer.json"
            return hf_json_tokenizer(
                name, text, source=str(target), parsed=data, cache_by_content=True, remember=remember
            )
        raise TokenizerLoadError(str(target), f"found {_describe_json(data, target)}; {EXPECTED}")
    if suffix == ".tiktoken" or _TIKTOKEN_LINE.match(head.split(b"\n", 1)[0].strip()):
        return _read_tiktoken_file(target, spec)
    if suffix == ".model" or (head[:1] == b"\x0a" and b"\x00" in head):  # a serialised ModelProto
        return sentencepiece_tokenizer(spec, target)
    raise TokenizerLoadError(str(target), f"found {_describe_bytes(head, suffix)}; {EXPECTED}")


# Top-level keys of a HF tokenizer.json (one is enough: a damaged file still gets the field-by-field check).
_HF_KEYS = frozenset(("model", "added_tokens", "normalizer", "pre_tokenizer", "post_processor", "decoder"))

_TIKTOKEN_LINE = re.compile(rb"[A-Za-z0-9+/]+={0,2} [0-9]{1,12}\Z")


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _describe_json_text(text: str) -> str:
    """What text that starts like JSON but is not one JSON value is."""
    lines = [line for line in text.splitlines()[:3] if line.strip()]
    if len(lines) > 1 and all(_json_or_none(line) is not None for line in lines):
        return "JSON Lines data (one JSON value per line)"
    return "text that starts like JSON but is not valid JSON"


def _describe_json(data: Any, target: Path) -> str:
    """What a JSON file that is not a tokenizer is, and the fix when it is a neighbour of one."""
    if not isinstance(data, dict):
        return f"JSON holding {json_kind(data, article=True)}"
    keys = list(itertools.islice(data, 6))
    shown = ", ".join(repr(k) for k in keys[:5]) + (", ..." if len(keys) > 5 else "")
    beside = (target.parent / "tokenizer.json").is_file()
    if "tokenizer_class" in data or "added_tokens_decoder" in data or "model_max_length" in data:
        where = f"pass its folder {str(target.parent)!r}, which has tokenizer.json" if beside else "pass tokenizer.json"
        return f"a tokenizer_config.json (settings, not the vocabulary): {where}, not this file"
    if "architectures" in data or "model_type" in data:
        return "a model config.json, not a tokenizer"
    if data and all(type(v) is int for v in itertools.islice(data.values(), 100)):
        return "a token-to-id map (vocab.json) without its merges, so not a whole tokenizer"
    return f"a JSON object with keys {shown} (a tokenizer.json has 'model', a tekken.json 'config' and 'vocab')"


def _describe_bytes(head: bytes, suffix: str) -> str:
    """What a file that is neither JSON nor ``.tiktoken`` ranks holds, from its first bytes."""
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = head[: exc.start].decode("utf-8") if exc.start > len(head) - 4 else None
    if text is None or "\x00" in text:
        return "binary data"
    first = text.lstrip().split("\n", 1)[0].strip()
    clipped = first if len(first) <= 40 else first[:40] + "..."
    return f"text starting {clipped!r} (a .tiktoken file has '<base64> <rank>' lines)"


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


def _load_object(obj: Any, refresh: bool = False) -> Tokenizer:
    if not refresh:
        tok = _objects.get(obj)  # only objects that take weak references are ever cached
        if tok is not None:
            return tok
    try:
        weakref.ref(obj)
    except TypeError:
        raise TokenizerLoadError(obj, f"unsupported tokenizer type {type(obj).__qualname__}") from None
    build, watch = _object_builder(obj)  # raises for unsupported types before any state exists
    fresh: list[Fresh | None] = [None]

    def load() -> Tokenizer:
        # The probe is taken before the object is read: a token added in between
        # is in the wrapper and also fails the probe, which costs one more wrap, never stale ids.
        fresh[0] = watch() if watch is not None else None
        tok = build()
        from ..chat.sources import remember_live

        remember_live(tok, obj)  # a transformers tokenizer's chat template, read now (obj is not kept)
        return tok

    def store(tok: Tokenizer) -> Tokenizer:
        return _objects.put(obj, tok, fresh[0], replace=refresh)

    lookup = (lambda: None) if refresh else (lambda: _objects.get(obj))
    # The object is alive (the caller holds it) for as long as its flight exists,
    # so its id cannot be reused by another object during the load.
    return _flights.run(("object", id(obj)), lookup, load, store)


def _object_builder(obj: Any) -> tuple[Callable[[], Tokenizer], Callable[[], Fresh] | None]:
    """How to wrap ``obj`` -- reading only what the wrapper needs, never keeping ``obj``
    -- and how to make its freshness test (None: the object cannot change)."""
    label = f"<{type(obj).__module__}.{type(obj).__qualname__} object>"
    try:
        from tokenizers import Tokenizer as HFTokenizer
    except ImportError:  # pragma: no cover - tokenizers is a core dependency
        HFTokenizer = None  # type: ignore[assignment,misc]
    backend_tok = getattr(obj, "backend_tokenizer", None) if not isinstance(obj, type) else None
    # Serialising is the costly part: only the flight's leader does it.
    if HFTokenizer is not None and isinstance(obj, HFTokenizer):
        return (
            lambda: hf_json_tokenizer(label, _to_str(obj, label), source=label, cache_by_model=True),
            lambda: _hf_fresh(obj, _itself),
        )
    if HFTokenizer is not None and isinstance(backend_tok, HFTokenizer):
        name = getattr(obj, "name_or_path", "") or label
        return (
            lambda: hf_json_tokenizer(str(name), _to_str(backend_tok, label), source=label, cache_by_model=True),
            lambda: _hf_fresh(backend_tok, _backend_of),
        )
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - tiktoken is a core dependency
        tiktoken = None  # type: ignore[assignment]
    if tiktoken is not None and isinstance(obj, tiktoken.Encoding):
        # An Encoding cannot change: its engine is built from its ranks when it is made.
        return _tiktoken_builder(obj), None
    if hasattr(obj, "convert_tokens_to_ids") and hasattr(obj, "encode"):
        raise TokenizerLoadError(
            label, "a slow (pure-Python) transformers tokenizer; load it with use_fast=True or pass its tokenizer.json"
        )
    raise TokenizerLoadError(
        label,
        "unsupported tokenizer type; pass a bundled name, a path, a transformers fast tokenizer, "
        "a tokenizers.Tokenizer or a tiktoken.Encoding",
    )


def _itself(obj: Any) -> Any:
    return obj


def _backend_of(obj: Any) -> Any:
    return obj.backend_tokenizer


def _hf_fresh(backend: Any, backend_of: Callable[[Any], Any]) -> Fresh:
    """An O(1) test that a ``tokenizers.Tokenizer`` has gained no token since now.

    HF gives a new token the id after the highest one (the model's vocabulary size,
    or the largest added id + 1), so the test reads that one id: ``id_to_token`` is
    a hash lookup, where ``get_vocab_size(with_added_tokens=True)`` walks the added
    tokens (DeepSeek's 1,283: a cost on every call). It also checks that ``backend_of(obj)`` --
    a transformers tokenizer's ``backend_tokenizer`` -- is still this backend. Holds
    the backend weakly.
    """
    added = backend.get_added_tokens_decoder()
    next_id = max(backend.get_vocab_size(with_added_tokens=False), max(added, default=-1) + 1)
    expected = backend.id_to_token(next_id)
    ref = weakref.ref(backend)

    def fresh(obj: Any) -> bool:
        current = backend_of(obj)
        return current is ref() and current.id_to_token(next_id) == expected

    return fresh


def _to_str(tok: Any, label: str) -> str:
    """``tokenizers.Tokenizer.to_str()``, with its failures as :class:`TokenizerLoadError`."""
    try:
        return tok.to_str()
    except BaseException as exc:
        if not is_engine_failure(exc):
            raise
        raise TokenizerLoadError(label, f"cannot serialise the tokenizer ({type(exc).__name__}: {exc})") from None


def _tiktoken_builder(enc: Any) -> Callable[[], Tokenizer]:
    from .assembly import RankedFamily
    from .engines.base import AddedToken

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
    "NotBundledError",
    "ToklaneError",
    "bundled_names",
    "bundled_table",
    "cache_info",
    "load_tokenizer",
    "loaded_tokenizer",
    "resolve_name",
    "suggest_names",
]
