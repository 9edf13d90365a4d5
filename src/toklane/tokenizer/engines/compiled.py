"""toklane's own compiled encoder (``toklane._bpe``) where a regex engine is the bottleneck.

DeepSeek-V4's pre-tokeniser is one long pattern with lookaheads and class
subtractions (:data:`.patterns.DEEPSEEK_V4`): tiktoken's regex engine runs it far slower than
cl100k's. Qwen3.5/3.6's pattern joins marks to letters,
which quicktok's scanners do not. ``toklane._bpe`` hand-compiles DeepSeek-V4's grammar
(``ds_piece``) and the Llama-3 family's (``llama_piece``: Llama 3's pattern, which reads as
cl100k's does, Qwen2/3's with digits one at a time, Qwen3.5/3.6's with marks joining letters),
reads Unicode classes as HF ``tokenizers`` does (:mod:`.unicode_classes`) and merges by rank as
tiktoken does, with the GIL released on long texts. It also builds quickly (a hash
table of the ranks), far sooner than quicktok's engine (the cold-start table of
``benchmarks/tokenizer.py``): the bundled vocabularies it compiles load on it and move to fastokens
once that pays (:mod:`.staged`).

:class:`CompiledEngine` keeps the tiktoken engine beside it, as the reference
for what the compiled grammar declines (a lone surrogate, which tiktoken
replaces by U+FFFD), for NFC and for decoding. Where the module was not built
(no C compiler at install) or ``TOKLANE_PURE_PYTHON=1`` is set, the loaders keep
the engines of before (tiktoken for DeepSeek-V4, quicktok for the others): same
ids, slower to load.
"""

from __future__ import annotations

import functools
import hashlib
import unicodedata
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ...switches import pure_python
from .. import image_cache, unicode_classes
from ..pieces import PARALLEL_MIN
from ..unicode_classes import class_table
from .quickranks import encode_parts
from .tiktoken import TiktokenEngine, python_nfc

try:
    from ... import _bpe  # type: ignore[attr-defined]
except ImportError:  # built without a C compiler
    _bpe = None

#: Whether the compiled encoder is in use (the module was built and not switched off).
NATIVE = _bpe is not None and not pure_python()

# Grammars ``toklane._bpe`` compiles, by the pattern each one is exactly.
_DEEPSEEK_V4 = 1
_QWEN3_5 = 2
_QWEN2 = 3
_LLAMA3 = 4  # (cl100k's pattern gives Llama 3's pre-tokens: its grammar too)
_O200K = 5
_TEKKEN = 6
_CJK_DEEPSEEK_V4 = ((0x4E00, 0x9FA5), (0x3040, 0x309F), (0x30A0, 0x30FF))

# What toklane._bpe.encode returns: a list of ids, their number, or their uint32 array.
_AS_LIST, _AS_COUNT, _AS_ARRAY = 0, 1, 2

#: The longest text :meth:`CompiledEngine.front` encodes (the texts a call's own cost weighs on: chat
#: messages, prompts' parts, tool arguments).
FRONT_MAX = 512


def front_leads(added: Iterable[str]) -> str | None:
    """The characters the added tokens ``added`` start with, which a front (``toklane._bpe.front``) looks
    for in a text before it skips the added-token scan; None where there are more than it takes (4)."""
    leads = "".join(sorted({s[0] for s in added if s}))
    return leads if len(leads) <= 4 else None


_UINT32 = "I" if array("I").itemsize == 4 else "L"  # (the array typecode of 4-byte ids)

# A batch goes to the pool from this many characters in all (below, threads cost more than they save).
_BATCH_PARALLEL_MIN = 1 << 15


def _grammars() -> dict[str, tuple[int, tuple[tuple[int, int], ...], bool]]:
    """Each pattern compiled: its grammar in ``toklane._bpe``, the CJK ranges its classes mark and
    whether they carry letters' case."""
    from .. import patterns

    return {
        patterns.DEEPSEEK_V4: (_DEEPSEEK_V4, _CJK_DEEPSEEK_V4, False),
        patterns.QWEN3_5: (_QWEN3_5, (), False),
        patterns.QWEN2: (_QWEN2, (), False),
        patterns.LLAMA3: (_LLAMA3, (), False),
        patterns.CL100K: (_LLAMA3, (), False),
        patterns.O200K: (_O200K, (), True),
        patterns.TEKKEN: (_TEKKEN, (), True),
    }


def handles(pattern: str) -> bool:
    """Whether :func:`compiled_engine` runs ``pattern`` compiled (else it keeps the regex engine)."""
    return NATIVE and pattern in _grammars()


def compiled_engine(engine: TiktokenEngine, pattern: str, ranks: Mapping[bytes, int], encoder: Any = None) -> Any:
    """``engine`` (tiktoken over ``pattern`` and ``ranks``) behind the compiled encoder,
    where ``pattern`` is one it compiles and the module is in use; else ``engine``. ``encoder``: the
    one :func:`encoder_for` built over these ranks and this pattern already (else it is built here)."""
    if not handles(pattern):
        return engine
    return CompiledEngine(engine, ranks, *_grammars()[pattern], encoder=encoder)


def encoder_for(pattern: str, ranks: Mapping[bytes, int]) -> Any:
    """The compiled encoder over ``ranks`` for ``pattern`` (one :func:`handles`): what a load that needs an
    encoder before its engine (the irregular check of a user's file) builds, and the engine then takes."""
    grammar, *classes = _grammars()[pattern]
    return _bpe.build(image_cache.as_dict(ranks), _class_table(*classes), grammar)


def replay_merges(vocab: dict[str, int], merges: list[Any]) -> tuple[Any, ...] | None:
    """``toklane._bpe.replay(vocab, merges)`` (:func:`..deepseek_v4.replay`'s two passes in C, many
    times its Python loops) where the compiled encoder is in use; ``None`` otherwise (the caller runs them)."""
    return _bpe.replay(vocab, merges) if NATIVE else None


def irregular_ranks(ranks: Mapping[bytes, int], left: Any, encoder: Any = None) -> list[int]:
    """The ranks of the tokens that ranked BPE, or the merge rules ``left`` gives (each merge's left part,
    in bytes, at its result's id: :func:`..deepseek_v4.replay`), do not build from their own bytes
    (``toklane._bpe.irregular``; compiled encoder only). ``encoder``: one over ``ranks`` already built
    (:func:`encoder_for`; only its merging is used), else one is built for the check."""
    if encoder is None:
        encoder = _bpe.build(image_cache.as_dict(ranks), _class_table(()), _QWEN3_5)
    return _bpe.irregular(encoder, left)


@functools.cache
def _class_table(cjk: tuple[tuple[int, int], ...], cased: bool = False) -> bytes:
    """:func:`.unicode_classes.class_table`, from the disk cache where an image of it is (keyed by the
    stored class runs, ``cjk`` and ``cased``)."""
    stored = unicode_classes.RUNS + (unicode_classes.CASED_RUNS if cased else "")
    runs = hashlib.blake2b(stored.encode(), digest_size=16).hexdigest()
    return image_cache.table(
        "class-table-1",
        f"{runs}|{cjk}|{cased}|{unicode_classes.DECLINE}|{unicode_classes.CJK}",
        unicode_classes.N_CODEPOINTS,
        lambda: class_table(cjk, cased),
    )


@functools.cache
def _nfc_flags() -> bytes:
    """:func:`_compute_nfc_flags`, from the disk cache where an image of it is (keyed by Python's Unicode version)."""
    return image_cache.table(
        "nfc-flags-2", f"unidata {unicodedata.unidata_version}", unicode_classes.N_CODEPOINTS, _compute_nfc_flags
    )


#: Whether NFC leaves a span of text as it is (what :func:`is_nfc` asks of each span; the front asks it from C).
nfc_span_stable = functools.partial(unicodedata.is_normalized, "NFC")


def is_nfc(text: str) -> bool:
    """Whether NFC leaves ``text`` as it is: ASCII is; else only the spans around the characters NFC may
    change (:func:`_compute_nfc_flags`, found by the compiled scan) are checked, where Python's check
    of a whole text is slow on Indic text -- by Unicode's quick check in C, and in Python only the spans
    it leaves open."""
    if text.isascii():
        return True
    if _bpe is None:
        return unicodedata.is_normalized("NFC", text)
    spans = _bpe.nfc_spans(_nfc_flags(), text, True)  # (those Unicode's quick check leaves open; None: no)
    return spans is not None and all(nfc_span_stable(text[a:b]) for a, b in spans)


@functools.cache
def _nfkc_flags() -> bytes:
    """:func:`_compute_nfkc_flags`, from the disk cache where an image of it is (keyed by Python's Unicode version)."""
    return image_cache.table(
        "nfkc-flags-1", f"unidata {unicodedata.unidata_version}", unicode_classes.N_CODEPOINTS, _compute_nfkc_flags
    )


def is_nfkc(text: str) -> bool:
    """Whether NFKC leaves ``text`` as it is, by any Unicode version's tables: ASCII does; else only the
    spans around the characters NFKC may change or join (:func:`_compute_nfkc_flags`) are checked, and a
    span that holds a code point Python's tables (older than HF's) leave unassigned counts as changed."""
    if text.isascii():
        return True
    if _bpe is None:
        return unicodedata.is_normalized("NFKC", text) and not any(unicodedata.category(c) == "Cn" for c in text)
    for a, b in _bpe.nfc_spans(_nfkc_flags(), text):
        span = text[a:b]
        if not unicodedata.is_normalized("NFKC", span) or any(unicodedata.category(c) == "Cn" for c in span):
            return False
    return True


def _compute_nfkc_flags() -> bytes:
    """One byte per code point, 1 where NFKC may change or reorder a character or join it to the one
    before (as :func:`_compute_nfc_flags`, with compatibility decompositions), or where Python's tables
    leave it unassigned (a newer Unicode may give it a decomposition); surrogates too."""
    flags = bytearray(_compute_nfc_flags())
    for c in range(0x80, unicode_classes.N_CODEPOINTS):
        ch = chr(c)
        if flags[c] or 0xD800 <= c < 0xE000:
            flags[c] = 1
            continue
        if unicodedata.category(ch) == "Cn" or unicodedata.normalize("NFKC", ch) != ch:
            flags[c] = 1
    return bytes(flags)


def _compute_nfc_flags() -> bytes:
    """One byte per code point, non-zero where NFC (Python's, the reference's) may change, reorder or
    join a character to the one before: a mark, a character NFC replaces, the second of a canonical
    pair, a Hangul vowel or final jamo. Every other character is one NFC keeps as it is and never joins
    to what precedes it, so NFC leaves the text before it apart from the text after. A flagged
    character's byte is also what Unicode's NFC quick check reads (``toklane._bpe`` ``nfc_quick``): the
    rank of its combining class among all classes << 2, or'd with its NFC_QC (0 yes, 1 maybe: it may
    compose with what precedes it; 2 no: NFC never keeps it). Computed once per machine: cached."""
    classes = sorted({unicodedata.combining(chr(c)) for c in range(0x300, 0x30000)} | {0})
    if len(classes) > 64:
        raise RuntimeError(f"{len(classes)} canonical combining classes: more than a flag byte holds")
    rank = {cc: k for k, cc in enumerate(classes)}
    flags = bytearray(unicode_classes.N_CODEPOINTS)
    for c in range(0xC0, 0x30000):  # (no character below U+00C0 or from U+30000 on is any of these)
        ch = chr(c)
        decomposition = unicodedata.decomposition(ch)
        flags[c] |= rank[unicodedata.combining(ch)] << 2
        if decomposition and unicodedata.normalize("NFC", ch) != ch:
            flags[c] |= _QC_NO
        parts = decomposition.split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            flags[int(parts[1], 16)] |= _QC_MAYBE
    for c in (*range(0x1161, 0x1176), *range(0x11A8, 0x11C3)):
        flags[c] |= _QC_MAYBE
    return bytes(flags)


_QC_MAYBE, _QC_NO = 1, 2  # (NFC_QC in a flag byte's low bits: 0 is yes)


# The image kind of an encoder's tables (toklane._bpe.encoder_image: the hash table's layout is the C
# code's, its hash function included, so the kind names its version: 3 since a short token is its slot's key).
_ENCODER_IMAGE = "encoder-3"


def _packed_encoder(ranks: image_cache.PackedRanks, classes: bytes, grammar: int, table: str) -> Any:
    """An encoder over ranks read from an image: memory-mapped from the encoder image those ranks and
    this grammar and class table made before (a fraction of a build; N processes share its pages), else
    built from the payload (and its image kept for the next load); None where the payload holds a token
    twice (the caller builds from the dict, which the image's rebuild makes)."""
    key = None if ranks.image is None else f"{ranks.image}|{grammar}|{table}"
    if key is not None:
        image = image_cache.mapped(_ENCODER_IMAGE, key)
        encoder = None if image is None else _bpe.build_mapped(image, classes, grammar)
        if encoder is not None:
            return encoder
    try:
        encoder = _bpe.build_packed(ranks.payload, classes, grammar)
    except ValueError:  # (a token twice)
        return None
    if key is not None:
        image_cache.store(_ENCODER_IMAGE, key, _bpe.encoder_image(encoder))
    return encoder


class CompiledEngine:
    """``toklane._bpe`` over one grammar and ranks table; ``reference`` (the tiktoken
    engine over the same pattern and ranks) takes what it declines and decodes."""

    name = "compiled"

    def __init__(
        self,
        reference: TiktokenEngine,
        ranks: Mapping[bytes, int],
        grammar: int,
        cjk: tuple,
        cased: bool = False,
        *,
        encoder: Any = None,
    ) -> None:
        self._reference = reference
        classes = _class_table(cjk, cased)
        if encoder is None and isinstance(ranks, image_cache.PackedRanks):  # (read in place: no object per token)
            encoder = _packed_encoder(ranks, classes, grammar, f"{cjk}|{cased}")
        self._encoder = encoder or _bpe.build(image_cache.as_dict(ranks), classes, grammar)
        self.threads = reference.threads
        self._normalize = reference._normalize
        self._nfkc = getattr(self._normalize, "form", "NFC") == "NFKC"

    def front(self, owner: Any, method: Any, leads: str | None, split_leads: str | None) -> Any:
        """``Tokenizer.encode``'s common call as one C call (``toklane._bpe.front``): a text of at most
        :data:`FRONT_MAX` characters holding none of ``leads`` (the characters added tokens start with;
        ``split_leads``: those matched under ``split_special_tokens``; "" where there are none, None where
        there are too many to look for) and, where the vocabulary normalises, no character its form may
        change, encoded here straight from ``Tokenizer.encode`` -- no Python frame between; anything else
        is ``method(owner(), ...)``. Longer texts keep the Python path, where a faster engine may take
        over once it pays (:mod:`.staged`)."""
        flags = None if self._normalize is None else (_nfkc_flags if self._nfkc else _nfc_flags)
        # (a text holding a character the form may change: each span around them is asked of span_stable
        # from C, before the method)
        stable = None if flags is None else self.span_stable
        return _bpe.front(self._encoder, owner, method, leads, split_leads, FRONT_MAX, flags, None, None, stable)

    @property
    def native(self) -> Any:
        """The compiled encoder itself (what ``toklane._bpe`` takes), for a front over another engine."""
        return self._encoder

    @property
    def span_stable(self) -> Callable[[str], bool]:
        """Whether the vocabulary's form leaves a span :func:`toklane._bpe.nfc_spans` found as it is
        (Python's NFC: its quick check; another form: the span normalised and compared)."""
        if self._normalize is python_nfc:
            return nfc_span_stable
        normalize = self._normalize
        return lambda span: normalize(span) == span

    def _prepare(self, text: str) -> str:
        """The text in the vocabulary's normal form, by its reference's function (Python's NFC for the
        bundled Qwen vocabularies, HF ``tokenizers``' NFC or NFKC for a user's file), computed only on the
        spans around characters Python's tables say the form may change (Python's check of a whole text
        is slow on Indic text; this is one compiled scan and a few spans). Every other character is
        one the form keeps, never joins to what precedes it and never reorders, so the text outside the
        spans stays as it is. HF's forms change nothing outside them either: its tables are older than
        Python's, and Unicode's stability rules keep the characters both know alike."""
        if self._normalize is None or text.isascii():
            return text
        spans = _bpe.nfc_spans(_nfkc_flags() if self._nfkc else _nfc_flags(), text)
        if not spans:
            return text
        parts: list[str] = []
        at = 0
        for a, b in spans:
            segment = text[a:b]
            normalized = self._normalize(segment)
            if normalized != segment:
                parts += (text[at:a], normalized)
                at = b
        return "".join((*parts, text[at:])) if at else text

    def normalized(self, text: str) -> str:
        """``text`` as this engine reads it (in its normal form, where it has one)."""
        return self._prepare(text)

    def _one(self, text: str) -> list[int]:
        ids = _bpe.encode(self._encoder, text, _AS_LIST)
        return self._reference.encode_ordinary(text) if ids is None else ids

    def _array(self, text: str) -> bytes:
        """``text``'s ids as native uint32 bytes, for :func:`toklane._bpe.join_ids`."""
        ids = _bpe.encode(self._encoder, text, _AS_ARRAY)
        return array(_UINT32, self._reference.encode_ordinary(text)).tobytes() if ids is None else ids

    def encode_ordinary(self, text: str) -> list[int]:
        if len(text) >= PARALLEL_MIN and self.threads > 1:
            return self.encode_ordinary_batch([text])[0]
        if self._normalize is None:  # (a short text's call: no frame more than it needs)
            ids = _bpe.encode(self._encoder, text, _AS_LIST)
            return self._reference.encode_ordinary(text) if ids is None else ids
        return self._one(self._prepare(text))  # NFC where the family normalises (Qwen)

    def encode_ordinary_batch(self, texts: list[str]) -> list[list[int]]:
        total = sum(map(len, texts))
        if self.threads == 1 or total < _BATCH_PARALLEL_MIN or (len(texts) == 1 and total < PARALLEL_MIN):
            if self._normalize is not None:
                return [self._one(self._prepare(t)) for t in texts]
            encoder = self._encoder
            out = [_bpe.encode(encoder, t, _AS_LIST) for t in texts]
            if None in out:  # (declined: a lone surrogate, say)
                out = [
                    self._reference.encode_ordinary(t) if ids is None else ids
                    for t, ids in zip(texts, out, strict=True)
                ]
            return out
        # Every text, long ones cut at pre-token boundaries, encoded part by part on all cores
        # (quickranks.encode_parts). Texts are cut before NFC (NFKC) and each part normalised on its
        # core: a cut (pieces._SAFE_CUT) is also a normalisation boundary, so NFC(text) is the parts'
        # NFC end to end and each cut is still a pre-token boundary there. It lies before an ASCII space
        # (a starter that NFC never joins to what precedes it) after a non-space character (which
        # NFC never turns into a space, nor NFKC into text ending with one: tested on every code point),
        # or after a newline (which no character joins or reorders across); the parts' ends keep those
        # characters. Each part's ids come back as a uint32 array (the GIL released throughout); one
        # list per text is then made from its parts' arrays at once (no list per part to join and free).
        arrays = encode_parts(texts, self.threads, lambda part: self._array(self._prepare(part)))
        return [_bpe.join_ids(self._encoder, parts) for parts in arrays]

    def count_ordinary(self, text: str) -> int:
        if len(text) >= PARALLEL_MIN:
            return len(self.encode_ordinary(text))
        text = self._prepare(text)
        n = _bpe.encode(self._encoder, text, _AS_COUNT)
        return self._reference.count_ordinary(text) if n is None else n

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        """The bytes of ``ids`` (ordinary ids, checked by the caller) joined from the encoder's own copy
        of the tokens: no tiktoken and no table of bytes objects needed to decode. Long id lists reach
        this rarely (the tokenizer's compiled id reader joins them)."""
        data = _bpe.decode(self._encoder, ids if isinstance(ids, (list, tuple)) else list(ids))
        if data is None:  # (an id the ranks do not hold: the caller checked them, so never)
            raise KeyError(f"an id outside the ranks in {list(ids)[:10]}")
        return data

    def iter_token_bytes(self) -> Iterable[tuple[int, bytes]]:
        return self._reference.iter_token_bytes()
