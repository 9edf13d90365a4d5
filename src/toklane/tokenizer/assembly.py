"""A ranks engine and a family's added tokens assembled into a :class:`Tokenizer`, checked at load.

:func:`ranks_engine` builds tiktoken's engine over checked ranks and probes it; :func:`fast_ranks_engine`
puts the fastest exact engine in front of it (toklane's compiled encoder, or quicktok where it has a
scanner); :func:`ranked_tokenizer` adds the family's added tokens (:class:`RankedFamily`) and, where
fastokens runs the vocabulary, the upgrade to it once it pays. Both the bundled tokenizers
(:mod:`.bundled`) and a user's files (:mod:`.user_files`) are assembled here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import TokenizerLoadError
from . import image_cache, irregular, patterns
from .core import Tokenizer
from .engines import quickranks
from .engines.base import AddedToken, Backend
from .engines.choose import RANKS_REASONS, RanksSpec, choose_engine, quicktok_scanner_pattern
from .engines.compiled import CompiledEngine, compiled_engine
from .engines.quickranks import CheckedEngine
from .engines.quicktok import QuicktokEngine
from .engines.ranked import RankedBPEBackend
from .engines.tiktoken import TiktokenEngine
from .files import (
    PROBE_TEXT,
    build_engine,
    check_ranks,
)


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
    return probed(engine, where, source) if probe else engine


def probed(engine: Any, where: str, source: Any) -> Any:
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


@dataclass(frozen=True)
class RankedFamily:
    """How to turn a ranks table of one family into a tokenizer."""

    pattern: str
    added: Callable[[], list[AddedToken]]
    nfc: bool = False
    bos: str | None = None
    eos: tuple[str, ...] = ()


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
    tok.engine_reason = f"{tok.engine}: {RANKS_REASONS.get(backend.engine, 'a ranks table and one pattern')}"
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


def fast_ranks_engine(
    name: str, pattern: str, ranks: Mapping[bytes, int], *, source: object, nfc: bool = False, offset: int = 0
) -> CheckedEngine | TiktokenEngine:
    """The engine :func:`.engines.choose.choose_engine` plans for ``ranks`` and ``pattern``, built once:
    toklane's compiled encoder (:mod:`.engines.compiled`; tiktoken over the same ranks is its reference,
    built only for a text the encoder declines); quicktok (:mod:`.engines.quickranks`; for Qwen3.5/3.6's
    pattern, Qwen2's scanner) with tiktoken for the words it may read differently
    (:class:`~.engines.quickranks.CheckedEngine`), or tiktoken alone where quicktok refuses the ranks;
    or tiktoken alone. Each is checked at load as :func:`ranks_engine` checks tiktoken."""
    engine = choose_engine(RanksSpec(pattern)).engine
    if engine == "compiled":
        reference = ranks_engine(name, pattern, ranks, source=source, nfc=nfc, offset=offset, probe=False)
        return probed(compiled_engine(reference, pattern, ranks), str(source), source)
    ranks = image_cache.as_dict(ranks)
    if engine == "tiktoken":
        return ranks_engine(name, pattern, ranks, source=source, nfc=nfc, offset=offset)
    qwen3_5 = pattern == patterns.QWEN3_5
    scanner_pattern = quicktok_scanner_pattern(pattern)
    check_ranks(ranks, source, offset=offset)
    where = str(source)
    hidden = irregular.stored_irregular(irregular.file_key(source))
    if hidden is None:  # not a bundled file: found here, a slow pass over every token
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
        exact = exact_engine(name, pattern, fast)
    engine = build_engine(
        where,
        "building the BPE engine",
        lambda: CheckedEngine(fast, exact, nfc=nfc, marks=qwen3_5, irregular=found),
    )
    return probed(engine, where, source)


def exact_engine(name: str, pattern: str, fast: QuicktokEngine) -> Callable[[], TiktokenEngine]:
    """Builds tiktoken over ``fast``'s ranks and ``pattern`` when first needed
    (for the rare words :class:`~.engines.quickranks.CheckedEngine` hands it)."""

    def build() -> TiktokenEngine:
        ranks = {data: i for i, data in fast.iter_token_bytes()}
        return TiktokenEngine(name, pattern, ranks, splittable=True)

    return build
