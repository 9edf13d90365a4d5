"""Encoding engines behind :class:`toklane.Tokenizer`.

Two shapes of backend cover every supported tokenizer:

* :class:`RankedBPEBackend` -- a byte-level BPE given as ranks (tiktoken files,
  quicktok's bundled data, Mistral tekken.json). An *engine* (quicktok or
  tiktoken, whichever is the fastest exact one for the vocabulary) encodes
  ordinary text; this class adds the added/special tokens itself, so their
  names and flags are exactly those of the model's HF ``tokenizer.json``.
* :class:`HFBackend` -- a ``tokenizers.Tokenizer`` (``tokenizer.json``). It is
  always a private copy that nothing else can reach, so no one can mutate it
  (``enable_truncation`` under a concurrent ``encode`` is what raises
  ``RuntimeError: Already borrowed`` in servers).

Backends encode *content* only: BOS/EOS added by ``add_special_tokens`` and
truncation live in :class:`toklane.Tokenizer`, outside every backend, so no
per-call option ever mutates shared state.
"""

from __future__ import annotations

import itertools
import os
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..errors import InvalidArgumentError
from ..gather import IdLists
from ..streammatch import Literals
from .bytelevel import bytes_to_token_string, token_string_to_bytes
from .pieces import (
    PARALLEL_MIN,
    WHITESPACE,
    UnjoinableWindowsError,
    encode_in_windows,
    long_run_threshold,
    parallel_pieces,
    piece_size,
)


@dataclass(frozen=True, slots=True)
class AddedToken:
    """A token matched as a whole in input text before BPE runs.

    ``special`` follows the HF ``tokenizer.json`` flag: special tokens are
    dropped by ``decode(skip_special_tokens=True)`` and read as plain text by
    ``encode(split_special_tokens=True)``. Non-special added tokens (Qwen's
    ``<think>``, ``<tool_call>``; DeepSeek's ``<think>``) are always atomic and
    always decoded.
    """

    content: str
    id: int
    special: bool = True


# --------------------------------------------------------------------------- engines


class BPEEngine(Protocol):
    """Ordinary byte-level BPE: no added-token handling, no normalisation."""

    name: str

    def encode_ordinary(self, text: str) -> list[int]: ...

    def encode_ordinary_batch(self, texts: list[str]) -> list[list[int]]: ...

    def count_ordinary(self, text: str) -> int: ...

    def decode_bytes(self, ids: Sequence[int]) -> bytes: ...

    def iter_token_bytes(self) -> Iterable[tuple[int, bytes]]:
        """Every ordinary token as ``(id, bytes)``."""
        ...


_SURROGATE = re.compile("[\ud800-\udfff]")


def _without_surrogates(text: str) -> str:
    """Lone surrogates cannot be UTF-8 encoded; read them as U+FFFD (as tiktoken does)."""
    return _SURROGATE.sub("\ufffd", text)


def flatten(batch: Sequence[Sequence[int]]) -> tuple[Any, Any]:
    """A batch of id lists as ``(ids, offsets)``: every id end to end (numpy ``uint32``)
    and where each list starts (``int64``, one more than the batch; list ``k`` is
    ``ids[offsets[k]:offsets[k + 1]]``)."""
    import numpy as np

    offsets = np.zeros(len(batch) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, batch), dtype=np.int64, count=len(batch)), out=offsets[1:])
    ids = np.fromiter(itertools.chain.from_iterable(batch), dtype=np.uint32, count=int(offsets[-1]))
    return ids, offsets


def _engine_failure(engine: str, exc: BaseException) -> InvalidArgumentError:
    """A Rust panic (``pyo3_runtime.PanicException``, not an ``Exception``) or
    windows that cannot be joined, as a documented error; anything else is
    re-raised as it is."""
    if type(exc).__module__ != "pyo3_runtime" and not isinstance(exc, UnjoinableWindowsError):
        raise exc
    return InvalidArgumentError("text", f"cannot be encoded by the {engine} engine ({str(exc)[:200]})")


# Endings of the pre-tokenisation patterns whose whitespace alternatives
# :mod:`toklane.tokenizer.pieces` reasons about (every bundled family's).
_SPLITTABLE_ENDINGS = (r"\s*[\r\n]+|\s+(?!\S)|\s+", r"\s*[\r\n]|\s+(?!\S)|\s")


def cpu_count() -> int:
    """Threads a tokenizer engine may use: the cores this process may run on, at most
    ``TOKLANE_THREADS`` where that is set (read when a tokenizer is built; corpus
    workers set it to 1 so that N workers use N cores)."""
    try:
        cores = max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        cores = max(1, os.cpu_count() or 1)
    limit = os.environ.get("TOKLANE_THREADS", "")
    return min(cores, max(1, int(limit))) if limit.isdigit() else cores


# Ids quicktok can return (it packs them in 18 bits): the size of the shared-int cache.
_QUICKTOK_IDS = 1 << 18
# Texts from this many characters are encoded to an array, then a list of shared ints: the array
# costs ~3 us more per call, which the shared ints make up from ~2K characters (cl100k_base, this
# machine: 0.94x at 2K characters of code, 1.3x at 20K, 1.2-1.5x at 100K).
_LISTS_FROM = 4096


class QuicktokEngine:
    """quicktok: the fastest exact engine for the encodings it has a scanner for
    (cl100k, o200k, o200k_harmony, llama3, qwen3 bundled; tekken and others over
    ranks, :mod:`.quickranks`; ~4x tiktoken measured here). Long texts are cut at
    pre-token boundaries and encoded on all cores (``encode_batch`` releases
    the GIL)."""

    name = "quicktok"

    def __init__(self, encoding: Any, n_ordinary: int, first: int = 0, *, hidden: dict[int, bytes] | None = None):
        """``hidden``: the bytes of the tokens ``encoding`` holds without them
        (:func:`.quickranks.quicktok_from_ranks`), by id."""
        self._enc = encoding
        self._hidden = hidden or {}
        self._n_ordinary = n_ordinary
        self._first = first
        self.threads = cpu_count()
        self._lists = IdLists(_QUICKTOK_IDS)

    def encode_ordinary(self, text: str) -> list[int]:
        if len(text) >= PARALLEL_MIN and self.threads > 1:
            pieces = parallel_pieces(text, piece_size(len(text), self.threads))
            if len(pieces) > 1:
                return self._flat(pieces)
        return self.encode_serial(text)

    def encode_serial(self, text: str) -> list[int]:
        """On this thread only (the call releases the GIL). From :data:`_LISTS_FROM` characters the
        ids come back as an array and become a list of shared ints (:class:`.gather.IdLists`):
        quicktok's own list makes an int per id, a third of the time on long texts."""
        if len(text) >= _LISTS_FROM:
            return self._lists(self.encode_array(text))
        try:
            return self._enc.encode_ordinary(text)
        except TypeError:
            return self._enc.encode_ordinary(_without_surrogates(text))

    def encode_array(self, text: str) -> Any:
        """``text``'s ids as a uint32 array, on this thread only (for :meth:`id_list` to join)."""
        try:
            return self._enc.encode_batch([text], 1, False)[0]
        except TypeError:
            return self._enc.encode_batch([_without_surrogates(text)], 1, False)[0]

    def id_list(self, ids: Any) -> list[int]:
        """uint32 ids (an array, or a list of arrays joined end to end) as a list of shared ints
        (:class:`.gather.IdLists`)."""
        return self._lists(ids)

    def _flat(self, texts: list[str]) -> list[int]:
        """All ids of ``texts`` end to end (one parallel ``encode_batch``)."""
        return self._lists(self.encode_ordinary_flat(texts)[0])

    def encode_ordinary_batch(self, texts: list[str]) -> list[list[int]]:
        flat, offsets = self.encode_ordinary_flat(texts)
        bounds = offsets.tolist()
        return [self._lists(flat[bounds[i] : bounds[i + 1]]) for i in range(len(texts))]

    def encode_ordinary_flat(self, texts: list[str]) -> tuple[Any, Any]:
        """The batch as :func:`flatten` gives it, straight from quicktok (no id lists)."""
        try:
            return self._enc.encode_batch(texts, self.threads, False)
        except TypeError:
            return self._enc.encode_batch([_without_surrogates(t) for t in texts], self.threads, False)

    def count_ordinary(self, text: str) -> int:
        if len(text) >= PARALLEL_MIN and self.threads > 1:
            return len(self.encode_ordinary(text))
        try:
            return self._enc.count(text)
        except TypeError:
            return self._enc.count(_without_surrogates(text))

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        if not self._hidden or self._hidden.keys().isdisjoint(ids):
            return self._enc.decode_bytes(ids)
        parts: list[bytes] = []
        run: list[int] = []
        for i in ids:
            data = self._hidden.get(i)
            if data is None:
                run.append(i)
                continue
            if run:
                parts.append(self._enc.decode_bytes(run))
                run = []
            parts.append(data)
        if run:
            parts.append(self._enc.decode_bytes(run))
        return b"".join(parts)

    def decode_single_token_bytes(self, token: int) -> bytes:
        data = self._hidden.get(token)
        return self._enc.decode_single_token_bytes(token) if data is None else data

    def iter_token_bytes(self) -> Iterable[tuple[int, bytes]]:
        one = self.decode_single_token_bytes
        return ((i, one(i)) for i in range(self._first, self._first + self._n_ordinary))


def _parallel_patterns() -> frozenset[str]:
    from . import deepseek_v4, patterns, quickranks

    return frozenset(
        (
            patterns.CL100K,
            patterns.O200K,
            patterns.LLAMA3,
            patterns.QWEN2,
            patterns.QWEN3_5,
            quickranks.TEKKEN,
            deepseek_v4.PATTERN,
        )
    )


# Patterns for which :func:`.pieces.parallel_pieces` cuts are proven (and tested).
_PARALLEL_PATTERNS = _parallel_patterns()


class TiktokenEngine:
    """tiktoken over a ranks table (used where quicktok has no scanner for the
    pre-tokenisation pattern: Qwen3.5/3.6, Mistral tekken, user .tiktoken files)."""

    name = "tiktoken"

    def __init__(
        self, name: str, pattern: str, ranks: dict[bytes, int], *, nfc: bool = False, splittable: bool | None = None
    ):
        """``splittable``: whether :mod:`.pieces` may cut long whitespace runs for
        ``pattern`` (``None``: when it ends in the ranked families' whitespace
        alternatives)."""
        import tiktoken

        self._ranks = ranks
        self._nfc = nfc
        self._enc = tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
        # Texts from this length on may hold a whitespace run that tiktoken's
        # regex cannot take (from 999,999 characters): they go through pieces.
        self._long = long_run_threshold()
        self._splittable = pattern.endswith(_SPLITTABLE_ENDINGS) if splittable is None else splittable
        # Cut long texts for all cores only where the cuts are proven (the
        # bundled families' patterns; a wrapped tiktoken.Encoding may have any).
        self.threads = cpu_count() if pattern in _PARALLEL_PATTERNS else 1

    def _prepare(self, text: str) -> str:
        if self._nfc and not unicodedata.is_normalized("NFC", text):
            text = unicodedata.normalize("NFC", text)
        return text

    def encode_ordinary(self, text: str) -> list[int]:
        if self._nfc and not unicodedata.is_normalized("NFC", text):
            text = unicodedata.normalize("NFC", text)
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


# --------------------------------------------------------------------------- backends


class Backend(Protocol):
    """What :class:`toklane.Tokenizer` needs from an engine."""

    engine: str
    added_tokens: tuple[AddedToken, ...]

    def encode(self, text: str, split_special_tokens: bool) -> list[int]: ...

    def encode_batch(self, texts: list[str], split_special_tokens: bool) -> list[list[int]]: ...

    def encode_batch_flat(self, texts: list[str], split_special_tokens: bool) -> tuple[Any, Any]:
        """``flatten(encode_batch(...))``, without the lists where the engine can."""
        ...

    def count(self, text: str) -> int: ...

    def decode(self, ids: Sequence[int], skip_special_tokens: bool) -> str: ...

    def token_table(self) -> tuple[dict[int, str], dict[int, bytes]]:
        """Every token as ``id -> vocab string`` and ``id -> raw bytes``.
        Built once per tokenizer (called under the tokenizer's lock)."""
        ...

    def with_special_tokens(self, text: str) -> list[int]:
        """Ids of ``text`` with the model's own BOS/EOS template applied."""
        ...


def _literals(strings: Iterable[str]) -> Literals | None:
    """The added tokens' texts as :class:`.streammatch.Literals` (the longest at the leftmost start,
    as the tokenizers match them; one compiled pass over a text); ``None`` for no strings."""
    ordered = sorted(set(strings) - {""})
    return Literals(ordered) if ordered else None


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
        special_texts = {t.content for t in self.added_tokens if t.special}
        self._match_all = _literals(by_text)
        self._match_atomic = _literals(s for s in by_text if s not in special_texts)
        self._added_ids = frozenset(t.id for t in self.added_tokens)
        self._special_ids = frozenset(t.id for t in self.added_tokens if t.special)
        self._added_bytes = {t.id: t.content.encode() for t in self.added_tokens}

    # encode ------------------------------------------------------------------
    def encode(self, text: str, split_special_tokens: bool) -> list[int]:
        added = self._match_atomic if split_special_tokens else self._match_all
        hits = added.find_all(text) if added is not None else None
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
        if added is None or not any(added.find_all(t) for t in texts):
            return self._engine.encode_ordinary_batch(texts)
        return [self.encode(t, split_special_tokens) for t in texts]

    def encode_batch_flat(self, texts: list[str], split_special_tokens: bool) -> tuple[Any, Any]:
        added = self._match_atomic if split_special_tokens else self._match_all
        if added is None or not any(added.find_all(t) for t in texts):
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


def _sentencepiece_bytes(token: str) -> bytes:
    """Bytes of a SentencePiece-style token: ``<0x0A>`` byte fallback, ``▁`` as space."""
    if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
        try:
            return bytes([int(token[3:5], 16)])
        except ValueError:
            pass
    return token.replace("\u2581", " ").encode()


# Below this many characters ``encode`` (GIL held, a few microseconds) beats
# ``encode_batch_fast`` (GIL released); above it the batch call is also faster.
_HF_SHORT = 256

# A Split that isolates a class without whitespace (DeepSeek's digits and CJK).
_NON_SPACE_CLASS = re.compile(r"\\p\{N\}(\{\d,\d\})?|\[[^\]\\^\s]*\]\+?")


def _hf_splittable(tok: Any, added: Iterable[AddedToken]) -> bool:
    """Whether :func:`.pieces.split_long_runs` holds for this tokenizer: no
    normaliser (one could rewrite spaces or prepend to every piece), a
    byte-level pre-tokeniser without its own regex after regex splits that
    either end in the ranked families' whitespace alternatives or isolate a
    class without whitespace, and no added token containing whitespace."""
    import json

    if tok.pre_tokenizer is None:
        return False
    try:
        normalizer = json.loads(tok.normalizer.__getstate__()) if tok.normalizer is not None else None
        pre = json.loads(tok.pre_tokenizer.__getstate__())
    except Exception:
        return False
    if normalizer and normalizer != {"type": "Sequence", "normalizers": []}:
        return False
    steps = pre.get("pretokenizers", []) if pre.get("type") == "Sequence" else [pre]
    for step in steps:
        if step.get("type") == "ByteLevel" and not step.get("use_regex", True):
            continue
        if step.get("type") != "Split" or step.get("behavior") != "Isolated" or step.get("invert"):
            return False
        regex = (step.get("pattern") or {}).get("Regex", "").replace("\r", r"\r").replace("\n", r"\n")
        if not (regex.endswith(_SPLITTABLE_ENDINGS) or _NON_SPACE_CLASS.fullmatch(regex)):
            return False
    return bool(steps) and not any(ch in WHITESPACE for t in added for ch in t.content)


class HFBackend:
    """A private ``tokenizers.Tokenizer`` built from ``tokenizer.json`` text.

    Texts from 256 characters on go through ``encode_batch_fast``, which
    releases the GIL. Long whitespace runs are cut (:mod:`.pieces`); other long
    pre-tokens are not, to keep the ids exact, and ``tokenizers``' BPE is
    superlinear on them (DeepSeek-V4, one run of emoji: 1M in 1.1 s, 2M in
    3.2 s, 4M = 16 MB in 9.3 s; 16M CJK full stops in 35 s). Such a request is
    bounded by the server's body limit and stalls no other thread.
    """

    engine = "tokenizers"

    def __init__(self, tokenizer_json: str):
        from tokenizers import Tokenizer as HFTokenizer
        from tokenizers import decoders

        self._json = tokenizer_json
        self._tok = HFTokenizer.from_str(tokenizer_json)
        # Settings serialised by whoever owned the original object are cleared
        # once, before this private copy is shared with anybody.
        self._tok.no_truncation()
        self._tok.no_padding()
        self._split_tok: Any = None
        self._split_lock = threading.Lock()
        self.added_tokens = tuple(
            sorted(
                (AddedToken(t.content, i, bool(t.special)) for i, t in self._tok.get_added_tokens_decoder().items()),
                key=lambda t: t.id,
            )
        )
        self.byte_level = isinstance(self._tok.decoder, decoders.ByteLevel)
        self._splittable = _hf_splittable(self._tok, self.added_tokens)
        self._long = long_run_threshold()
        # One vocabulary read at load: the id space and its holes (for id
        # validation); the dict is kept only until the tables are built.
        self._vocab: dict[str, int] | None = self._tok.get_vocab(with_added_tokens=True)
        ids = set(self._vocab.values())
        self.vocab_size = max(ids) + 1
        self.holes = frozenset(range(self.vocab_size)) - ids if len(ids) != self.vocab_size else frozenset()

    def _splitting(self) -> Any:
        """A second private copy that reads special tokens as text (built on first use)."""
        if self._split_tok is None:
            with self._split_lock:
                if self._split_tok is None:
                    from tokenizers import Tokenizer as HFTokenizer

                    tok = HFTokenizer.from_str(self._json)
                    tok.no_truncation()
                    tok.no_padding()
                    tok.encode_special_tokens = True
                    self._split_tok = tok
        return self._split_tok

    def encode(self, text: str, split_special_tokens: bool) -> list[int]:
        tok = self._splitting() if split_special_tokens else self._tok
        if len(text) < _HF_SHORT:
            # Hot path: ``encode`` holds the GIL, for a few microseconds here.
            try:
                return tok.encode(text, add_special_tokens=False).ids
            except TypeError:
                return tok.encode(_without_surrogates(text), add_special_tokens=False).ids
        return self._encode_many(tok, [text])[0]

    def encode_batch(self, texts: list[str], split_special_tokens: bool) -> list[list[int]]:
        tok = self._splitting() if split_special_tokens else self._tok
        return self._encode_many(tok, texts)

    def encode_batch_flat(self, texts: list[str], split_special_tokens: bool) -> tuple[Any, Any]:
        return flatten(self.encode_batch(texts, split_special_tokens))

    def _encode_many(self, tok: Any, texts: list[str], add_special_tokens: bool = False) -> list[list[int]]:
        """Every text through one ``encode_batch_fast`` call, which releases the GIL
        (``encode`` holds it: one long text stalled every other thread) and runs
        the texts, and the pieces of long ones, in parallel."""
        out: list[list[int] | None] = [None] * len(texts)
        whole: list[int] = []  # texts without a long run: one parallel batch
        try:
            for k, text in enumerate(texts):
                if self._splittable and not add_special_tokens and len(text) >= self._long:
                    out[k] = encode_in_windows(text, lambda t: self._one(tok, t), self._token_bytes)
                if out[k] is None:
                    whole.append(k)
            if whole:
                batch = [texts[k] for k in whole]
                for k, ids in zip(whole, self._many(tok, batch, add_special_tokens), strict=True):
                    out[k] = ids
        except BaseException as exc:
            raise _engine_failure(self.engine, exc) from None
        return out  # type: ignore[return-value]

    def _one(self, tok: Any, text: str) -> list[int]:
        return self._many(tok, [text], False)[0]

    def _many(self, tok: Any, texts: list[str], add_special_tokens: bool) -> list[list[int]]:
        try:
            encodings = self._batch(tok, texts, add_special_tokens=add_special_tokens)
        except TypeError:
            encodings = self._batch(tok, [_without_surrogates(t) for t in texts], add_special_tokens=add_special_tokens)
        return [e.ids for e in encodings]

    def _token_bytes(self, token: int) -> bytes:
        string = self._tok.id_to_token(token) or ""
        data = token_string_to_bytes(string) if self.byte_level else None
        return data if data is not None else string.encode()

    def _batch(self, tok: Any, texts: list[str], add_special_tokens: bool) -> list[Any]:
        fast = getattr(tok, "encode_batch_fast", None)  # tokenizers >= 0.21: no offsets, faster
        if fast is not None:
            return fast(texts, add_special_tokens=add_special_tokens)
        return tok.encode_batch(texts, add_special_tokens=add_special_tokens)

    def count(self, text: str) -> int:
        return len(self.encode(text, False))

    def with_special_tokens(self, text: str) -> list[int]:
        if len(text) >= _HF_SHORT:
            return self._encode_many(self._tok, [text], add_special_tokens=True)[0]
        try:
            return self._tok.encode(text, add_special_tokens=True).ids
        except TypeError:
            return self._tok.encode(_without_surrogates(text), add_special_tokens=True).ids

    def decode(self, ids: Sequence[int], skip_special_tokens: bool) -> str:
        return self._tok.decode(list(ids), skip_special_tokens=skip_special_tokens)

    def token_table(self) -> tuple[dict[int, str], dict[int, bytes]]:
        vocab, self._vocab = self._vocab, None
        if vocab is None:
            vocab = self._tok.get_vocab(with_added_tokens=True)
        added = {t.id: t.content for t in self.added_tokens}
        to_bytes: Callable[[str], bytes | None] = token_string_to_bytes if self.byte_level else _sentencepiece_bytes
        strings: dict[int, str] = {}
        raw: dict[int, bytes] = {}
        for token, i in vocab.items():
            strings[i] = token
            if i in added:
                raw[i] = added[i].encode()
            else:
                data = to_bytes(token)
                raw[i] = data if data is not None else token.encode()
        return strings, raw
