"""SentencePiece-style BPE (Llama 2, Mistral v1-v7) on toklane's compiled encoder: ~10x the library.

A SentencePiece BPE model turns spaces into U+2581 and puts one U+2581 before the text (the dummy
prefix); its characters are the first parts (user-defined pieces whole and frozen), and a character no
piece holds is its UTF-8 bytes' byte pieces (byte fallback). Then pairs merge until none can:

* a ``.model`` file (the ``sentencepiece`` library): any two adjacent parts whose joined text is a
  piece, the best-scored piece first and the leftmost among equal scores (its agenda's order);
* a SentencePiece-style ``tokenizer.json`` (HF ``tokenizers``): only the pairs its merges list, the
  lowest-ranked first and the leftmost among equal ones (so runs of spaces read differently from the
  library: HF is the reference for the file).

:class:`SentencePieceMerges` runs either on a ``toklane._bpe`` encoder: the ranks are the model's ids,
and ``sp_tune`` makes characters the first parts and gives each piece its score's place, or each rule
its rank. Words are split before each run of U+2581, which no piece (or merge) of the files taken
holds after another character: the split only bounds each merge's work and lets a word's ids be kept
across calls. What a file holds that this does not reproduce keeps it on its reference engine
(:func:`model_refusal`, :func:`json_refusal` say why): the library or HF ``tokenizers``, which also
decode and encode what the encoder declines (a lone surrogate).
"""

from __future__ import annotations

import functools
import math
import re
import threading
from array import array
from collections.abc import Callable, Iterable, Sequence
from operator import methodcaller
from typing import Any

from ...streammatch import Literals
from ...switches import pure_python
from ..files import SP_BYTE, SP_NORMAL, SP_UNUSED, SP_USER_DEFINED, Pipeline, SentencePieceModel
from ..unicode_classes import DECLINE
from .base import AddedToken, _literals, flatten

try:
    from ... import _bpe  # type: ignore[attr-defined]
except ImportError:  # built without a C compiler
    _bpe = None

_G_SENTENCEPIECE = 7  # toklane._bpe's grammar: words split before each run of U+2581
_AS_LIST, _AS_COUNT = 0, 1
_UINT32 = "I" if array("I").itemsize == 4 else "L"
SPACE = "\u2581"
_INNER_SPACE = re.compile("[^\u2581\n]\u2581")
_BYTE_PIECE = re.compile("<0x[0-9A-F]{2}>")


@functools.cache
def _classes() -> bytes:
    """One class byte per code point: only the surrogates flagged (the grammar reads U+2581 alone)."""
    table = bytearray(0x110000)
    table[0xD800:0xE000] = bytes([DECLINE]) * 0x800
    return bytes(table)


def _hits(match: Literals | None, text: str) -> list[tuple[int, int, int]]:
    """``match``'s hits in ``text`` (none without a scan where its strings' first character is absent)."""
    if match is None or (match.lead is not None and match.lead not in text):
        return []
    return match.find_all(text)


def _around(
    text: str, hits: list[tuple[int, int, int]], whole: Callable[[int], Any], part: Callable[[str, int], Any], out: Any
) -> Any:
    """``out`` plus, in order, ``part(stretch, start)`` of each stretch of ``text`` between ``hits`` and
    ``whole(k)`` of each hit (string ``k`` of the matcher); None where a part is None (declined)."""
    start = 0
    for k, a, b in hits:
        if a > start:
            got = part(text[start:a], start)
            if got is None:
                return None
            out += got
        out += whole(k)
        start = b
    if start < len(text):
        got = part(text[start:], start)
        if got is None:
            return None
        out += got
    return out


def _unbuilt() -> str | None:
    if _bpe is None or pure_python():
        return "toklane's compiled encoder is not built (or TOKLANE_PURE_PYTHON is set)"
    return None


def _inner_space(pieces: Sequence[str]) -> str | None:
    """Why splitting words before each run of U+2581 could part a piece of ``pieces`` (None: it cannot)."""
    inner = _INNER_SPACE.search("\n".join(pieces))
    return None if inner is None else f"a piece holds U+2581 after another character ({inner.group()!r})"


def model_refusal(model: SentencePieceModel) -> str | None:
    """Why the ``.model`` file's encoding is not the compiled merges' (None: it is)."""
    if (unbuilt := _unbuilt()) is not None:
        return unbuilt
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
    if (inner := _inner_space(normal)) is not None:
        return inner
    missing = set("".join(normal)).difference(p for p in normal if len(p) == 1)
    if missing:
        return f"a character of a piece is no piece ({min(missing)!r})"
    return None


def _json_prefix(pipeline: Pipeline) -> str | None:
    """How a SentencePiece-style ``tokenizer.json`` puts U+2581 before a text (``dummy``: always, as
    ``Prepend``; ``always`` / ``first``: Metaspace's, unless it starts with one), or None where its
    normalizer and pre-tokenizer are not one of these two shapes."""
    steps = [*pipeline.normalizers, *pipeline.pre_tokenizers]
    kinds = sorted(str(s.get("type")) for s in steps)
    if kinds == ["Prepend", "Replace"] and not pipeline.pre_tokenizers:
        prepend = next(s for s in steps if s.get("type") == "Prepend")
        replace = next(s for s in steps if s.get("type") == "Replace")
        if prepend.get("prepend") == SPACE and replace.get("pattern") == {"String": " "}:
            return "dummy" if replace.get("content") == SPACE else None
        return None
    if kinds == ["Metaspace"] and not pipeline.normalizers:
        meta = steps[0]
        scheme = meta.get("prepend_scheme", "always" if meta.get("add_prefix_space", True) else "never")
        if meta.get("replacement") == SPACE and not meta.get("split", True) and scheme in ("always", "first"):
            return str(scheme)
    return None


def json_refusal(pipeline: Pipeline) -> str | None:
    """Why a ``tokenizer.json`` is not a SentencePiece-style file the compiled merges run exactly as HF
    ``tokenizers`` does (None: it may be one; :meth:`SentencePieceMerges.of_json` checks its vocabulary
    and merges). Reads only what a file's cached skeleton holds (:func:`..user_files.json_skeleton`)."""
    if (unbuilt := _unbuilt()) is not None:
        return unbuilt
    model = pipeline.model
    if pipeline.model_type != "BPE" or not model.get("byte_fallback"):
        return "not a BPE model with byte fallback"
    if _json_prefix(pipeline) is None:
        return "not Prepend + Replace(' ') or Metaspace(split=false, always or first) before it"
    for key in ("dropout", "continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(key):
            return f"BPE option {key}"
    if model.get("ignore_merges"):
        return "BPE option ignore_merges"
    for token in pipeline.added_tokens:
        if token.get("normalized") or any(token.get(k) for k in ("single_word", "lstrip", "rstrip")):
            return f"added token {str(token.get('content'))[:40]!r} is normalized or has single_word/lstrip/rstrip"
    return None  # (its vocabulary and merges are checked as the merges are built: SentencePieceMerges.of_json)


def _rules(vocab: dict[str, int], merges: list[Any]) -> array | None:
    """The merges as ``sp_tune`` rules (native uint32 triples: the token made, the byte length of its
    left part, the merge's rank; a pair listed twice merges by its last rank, as HF's table keeps it), or
    None where one is not a pair of vocabulary tokens making one, involves a byte token, or makes a token
    holding U+2581 after another character. (C-level passes only: a small part of a load.)"""
    if not merges:
        return array(_UINT32)
    try:
        pairs = list(map(methodcaller("split", " "), merges)) if isinstance(merges[0], str) else merges
        if set(map(len, pairs)) != {2}:
            return None
        lefts, rights = zip(*pairs, strict=True)
        made = list(map(str.__add__, lefts, rights))
        tokens = list(map(vocab.get, made))
        sizes = list(map(len, map(str.encode, lefts)))
    except (TypeError, ValueError, AttributeError):  # (not pairs of strings)
        return None
    if None in tokens or not (set(lefts) | set(rights)) <= vocab.keys():
        return None
    joined = "\n".join(made)
    if _INNER_SPACE.search(joined) or _BYTE_PIECE.search(joined) or _BYTE_PIECE.search("\n".join(lefts)):
        return None
    rules = array(_UINT32, bytes(12 * len(made)))
    rules[0::3] = array(_UINT32, tokens)
    rules[1::3] = array(_UINT32, sizes)
    rules[2::3] = array(_UINT32, range(len(made)))
    return rules


class SentencePieceMerges:
    """A SentencePiece-style BPE model's encoding of ordinary text on the compiled encoder: its merges by
    score (:meth:`of_model`) or by its merge rules (:meth:`of_json`). ``prefix``: how U+2581 goes before
    a text (:func:`_json_prefix`; a ``.model`` file's dummy prefix is ``dummy``, none is ``""``);
    ``user``: pieces taken whole wherever they occur (a ``.model`` file's user-defined pieces)."""

    def __init__(
        self,
        ranks: dict[bytes, int],
        priorities: array,
        rules: array | None,
        prefix: str,
        user: dict[str, int] | None = None,
    ) -> None:
        self._encoder = _bpe.build(ranks, _classes(), _G_SENTENCEPIECE)
        #: Pieces whose characters do not merge to them: a word of their text is encoded by merges.
        self.not_whole = _bpe.sp_tune(self._encoder, priorities.tobytes(), None if rules is None else rules.tobytes())
        self._prefix = prefix
        self._user = user or {}
        self._user_match: Literals | None = _literals(self._user)

    @classmethod
    def of_model(cls, model: SentencePieceModel) -> SentencePieceMerges:
        """A ``.model`` file's merges (:func:`model_refusal` None)."""
        kinds = model.types
        ranks = {p.encode(): k for k, p in enumerate(model.pieces) if kinds[k] == SP_NORMAL}
        byte_ids = {p: k for k, p in enumerate(model.pieces) if kinds[k] == SP_BYTE}
        for b in range(256):  # a byte's own piece (the library's by its name) where no character piece is it
            ranks.setdefault(bytes([b]), byte_ids[f"<0x{b:02X}>"])
        scores = model.scores
        place = {s: k for k, s in enumerate(sorted({scores[k] for k in ranks.values()}, reverse=True))}
        prio = array(_UINT32, bytes(4 * (max(ranks.values()) + 1)))
        for k in ranks.values():
            prio[k] = place[scores[k]]  # (a byte piece's priority is never read: no pair joins into one)
        user = {p: k for k, (p, t) in enumerate(zip(model.pieces, kinds, strict=True)) if t == SP_USER_DEFINED}
        return cls(ranks, prio, None, "dummy" if model.add_dummy_prefix else "", user)

    @classmethod
    def of_json(cls, pipeline: Pipeline) -> SentencePieceMerges:
        """A SentencePiece-style ``tokenizer.json``'s merges (:func:`json_refusal` None; ValueError where its
        vocabulary or merges are not ones this runs exactly); its added tokens are the backend's to match
        (:class:`SentencePieceJsonBackend`)."""
        vocab, merges = pipeline.model.get("vocab"), pipeline.model.get("merges")
        if not isinstance(vocab, dict) or not isinstance(merges, list):
            raise ValueError("no vocabulary and merges")
        if any(f"<0x{b:02X}>" not in vocab for b in range(256)):
            raise ValueError("byte fallback without all 256 byte tokens")
        rules = _rules(vocab, merges)
        if rules is None:
            raise ValueError("a merge outside the vocabulary, of a byte token, or with U+2581 after another character")
        ranks = {p.encode(): i for p, i in vocab.items() if not _BYTE_PIECE.fullmatch(p)}
        for b in range(256):  # a byte's own token where no character token is that byte
            ranks.setdefault(bytes([b]), vocab[f"<0x{b:02X}>"])
        prio = array(_UINT32, bytes(4 * (max(ranks.values()) + 1)))
        return cls(ranks, prio, rules, str(_json_prefix(pipeline)))

    def _normal(self, text: str, first: bool) -> str:
        normal = text.replace(" ", SPACE)
        if self._prefix == "dummy":
            return SPACE + normal
        if (self._prefix == "always" or (self._prefix == "first" and first)) and not normal.startswith(SPACE):
            return SPACE + normal
        return normal

    def _run(self, text: str, mode: int, first: bool) -> Any:
        """``toklane._bpe.encode`` of the normalised ``text``, user-defined pieces taken whole; None
        where the encoder declines (a lone surrogate)."""
        if not text:
            return [] if mode == _AS_LIST else 0
        normal = self._normal(text, first)
        hits = _hits(self._user_match, normal)
        if not hits:
            return _bpe.encode(self._encoder, normal, mode)
        strings = self._user_match.strings  # type: ignore[union-attr]
        return _around(
            normal,
            hits,
            (lambda k: [self._user[strings[k]]]) if mode == _AS_LIST else (lambda k: 1),
            lambda stretch, _: _bpe.encode(self._encoder, stretch, mode),
            [] if mode == _AS_LIST else 0,
        )

    def encode(self, text: str, first: bool = True) -> list[int] | None:
        """The ids of ``text`` (``first``: it starts the input, for Metaspace's ``first``); None: a text to
        leave to the reference engine."""
        return self._run(text, _AS_LIST, first)

    def count(self, text: str, first: bool = True) -> int | None:
        """How many ids :meth:`encode` gives (None: a text to leave to the reference engine)."""
        return self._run(text, _AS_COUNT, first)


class SentencePieceJsonBackend:
    """A SentencePiece-style ``tokenizer.json``: encoded by its merges on the compiled encoder, its added
    tokens matched whole (leftmost, longest: none is ``normalized`` or strips), everything else -- decode,
    the special-token template, vocabulary tables, a text the encoder declines -- by HF ``tokenizers``
    (:attr:`exact`, the reference it equals), built on first need: a job that only encodes or counts never
    pays for it. ``exact``: what builds it; ``ids``: every id the file holds; ``template``: the ids its
    post-processor puts before and after a text (None: HF applies it)."""

    engine = "compiled"

    def __init__(
        self,
        exact: Callable[[], Any],
        merges: SentencePieceMerges,
        added: Iterable[AddedToken],
        ids: Iterable[int],
        template: tuple[Sequence[int], Sequence[int]] | None = None,
    ) -> None:
        self._build_exact = exact
        self._template = template
        self._exact: Any = None
        self._lock = threading.Lock()
        self._merges = merges
        self.added_tokens = tuple(sorted(added, key=lambda t: t.id))
        known = set(ids)
        self.vocab_size = max(known) + 1
        self.holes = frozenset(range(self.vocab_size)) - known if len(known) != self.vocab_size else frozenset()
        self._id_of = {t.content: t.id for t in self.added_tokens}
        self._match_all = _literals(self._id_of)
        self._match_atomic = _literals(t.content for t in self.added_tokens if not t.special)

    @property
    def exact(self) -> Any:
        """HF ``tokenizers`` over the file (built on first use, once)."""
        if self._exact is None:
            with self._lock:
                if self._exact is None:
                    self._exact = self._build_exact()
        return self._exact

    def encode(self, text: str, split_special_tokens: bool) -> list[int]:
        match = self._match_atomic if split_special_tokens else self._match_all
        hits = _hits(match, text)
        if not hits:
            ids = self._merges.encode(text)
        else:
            strings, id_of = match.strings, self._id_of  # type: ignore[union-attr]
            merges = self._merges
            ids = _around(text, hits, lambda k: [id_of[strings[k]]], lambda part, at: merges.encode(part, at == 0), [])
        return self.exact.encode(text, split_special_tokens) if ids is None else ids

    def encode_batch(self, texts: list[str], split_special_tokens: bool) -> list[list[int]]:
        return [self.encode(t, split_special_tokens) for t in texts]

    def encode_batch_flat(self, texts: list[str], split_special_tokens: bool) -> tuple[Any, Any]:
        return flatten(self.encode_batch(texts, split_special_tokens))

    def count(self, text: str) -> int:
        if not _hits(self._match_all, text):
            n = self._merges.count(text)
            if n is not None:
                return n
        return len(self.encode(text, False))

    def with_special_tokens(self, text: str) -> list[int]:
        if self._template is None:
            return self.exact.with_special_tokens(text)
        before, after = self._template
        return [*before, *self.encode(text, False), *after]

    def __getattr__(self, name: str) -> Any:  # HF's other attributes (decode, token_table, ...)
        if name.startswith("_"):  # (this object's own, not set yet: no recursion)
            raise AttributeError(name)
        return getattr(self.exact, name)
