"""The tokenizer files a user brings, loaded onto the fastest exact engine: ``tokenizer.json`` (the
compiled encoder where it reproduces the pipeline, HF ``tokenizers`` otherwise; the checks' results
and the replayed ranks kept in the disk cache by the file's content, so a second load reads neither
the JSON's vocabulary nor its merges again), ``tekken.json``, SentencePiece ``.model`` and
``.tiktoken`` files. The bundled tokenizers that ship such files (DeepSeek-V4, Mistral) load through
the same functions.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import marshal
import os
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import TokenizerLoadError
from ..release import __version__
from . import deepseek_v4, image_cache, irregular
from .assembly import RankedFamily, fast_ranks_engine, probed, ranked_tokenizer, ranks_engine
from .compiled_pipelines import compiled_pipeline
from .core import Tokenizer
from .engines.base import AddedToken, surrounding
from .engines.choose import SENTENCEPIECE_REFUSED, SentencePieceSpec, choose_engine, without_normalizer
from .engines.compiled import NATIVE as compiled_in_use
from .engines.compiled import compiled_engine, encoder_for, irregular_ranks, is_nfkc
from .engines.compiled import handles as compiled_handles
from .engines.hf import HF_NORMALIZERS, HFBackend
from .files import (
    Pipeline,
    TekkenData,
    build_engine,
    check_tokenizer_json,
    load_json,
    model_from_payload,
    model_payload,
    parse_sentencepiece,
    parse_tekken,
    parse_tiktoken_ranks,
    read_bytes,
    read_text,
)

if TYPE_CHECKING:
    from .engines.sentencepiece_bpe import SentencePieceMerges


def read_tiktoken_ranks(path: str | os.PathLike[str], spec: object = None) -> dict[bytes, int]:
    """Parse a ``.tiktoken`` file (``base64-token rank`` per line): a regular file
    within the size cap, well-formed lines, each token once (see
    :mod:`toklane.tokenizer.files`; :func:`ranks_engine` checks the rest)."""
    source = os.fspath(path) if spec is None else spec
    return parse_tiktoken_ranks(read_bytes(path, source), source)


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


def json_skeleton(data: Any) -> Any:
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


def json_payload(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode()


def json_from_payload(payload: bytes) -> Any:
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
    built: list[Any] = []  # (the encoder the irregular check built, where it ran)

    def replayed() -> dict[bytes, int]:
        try:
            ranks, left = deepseek_v4.replay(whole()["model"], source, allow_ignore_merges=check_regular)
        except TokenizerLoadError as exc:
            raise MergesNotRanks(exc.spec, exc.reason) from None
        if check_regular:  # (the compiled encoder it builds is the engine's: one build per load)
            built.append(encoder_for(pattern, ranks) if compiled_in_use and compiled_handles(pattern) else None)
            _refuse_irregular(ranks, left, source, built[0])
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
    # toklane's compiled encoder over the same pattern and ranks (faster than tiktoken; tiktoken where not built)
    engine = probed(compiled_engine(engine, pattern, ranks, built[0] if built else None), source, source)
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


def _refuse_irregular(ranks: dict[bytes, int], left: array, source: str, encoder: Any = None) -> None:
    """A :class:`MergesNotRanks` where ranked BPE may read a text differently from HF's BPE over the
    file's merges: a token that ranked BPE, or the merge rules, do not build from its own bytes (a
    vocabulary extended by hand: HF applies only the file's merges and never looks a whole pre-token
    up, ranked BPE merges any two parts that make a token). Such a file loads with ``tokenizers``.
    ``left``: each merge's split (:func:`.deepseek_v4.replay`)."""
    # (tiktoken's ranks engine, where the compiled one is not in use: ranked BPE too)
    found = irregular_ranks(ranks, left, encoder) if compiled_in_use else irregular.find_irregular(ranks)
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
    parse the JSON a second time, adding noticeably to deepseek-v4's cold load).
    ``cache_ranks``: ``source`` is the file ``tokenizer_json`` was read from, and the ranks derived from
    it are kept in the disk cache (:mod:`.image_cache`; bundled data). ``full``: the whole parsed file,
    where ``parsed`` is its skeleton (:func:`json_skeleton`: trusted, cached data). ``cache_by_content``: the
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
    merges = None
    if plan.sentencepiece:  # (its merges on the compiled encoder, HF tokenizers beside them)
        try:
            from .engines.sentencepiece_bpe import SentencePieceMerges

            merges = SentencePieceMerges.of_json(Pipeline(parsed if full is None else full()))
        except (ValueError, OverflowError, TypeError) as exc:  # (ids out of range: refused by the encoder)
            assert plan.otherwise is not None
            plan = dataclasses.replace(plan.otherwise, reason=f"{plan.otherwise.reason} ({SENTENCEPIECE_REFUSED}{exc})")
    reason = plan.explain() if not trusted else plan.reason
    tok = None
    refused = _seen_refusal(text()) if checked and plan.engine in ("compiled", "tiktoken") else None
    if refused is not None:
        reason = refused
    elif plan.engine in ("compiled", "tiktoken") and not plan.sentencepiece:
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
        if merges is not None:
            whole = parsed if full is None else full()
            tok = _sentencepiece_json_tokenizer(name, text, whole, merges, ids, source=source, aliases=aliases, eos=eos)
        else:
            tok = _hf_tokenizer(name, text(), source=source, aliases=aliases, eos=eos, ids=ids)
        if remember and ids is not None:
            image_cache.store("json-ids", _content_key(text()), array("I", ids).tobytes())
    if remember:
        image_cache.store("json-skeleton", _content_key(text()), json_payload(json_skeleton(parsed)))
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
    return _bytes_key(text.encode("utf-8", "surrogatepass"))


def _bytes_key(data: bytes) -> str:
    """What keys the images derived from a file's bytes (:func:`_content_key`)."""
    digest = hashlib.blake2b(data, digest_size=32).hexdigest()
    return f"toklane {__version__} checks {_CONTENT_CHECKS} blake2b {digest}"


def _model_key(model: Any) -> str:
    """What keys the ranks replayed from a parsed BPE ``model`` (vocabulary, merges, options): a hash of
    its marshal image (version 2: no back-references, so the same model gives the same bytes in any
    process) and the toklane release that checked it (a cost in proportion to the vocabulary)."""
    digest = hashlib.blake2b(marshal.dumps(model, 2), digest_size=32).hexdigest()
    return f"toklane {__version__} checks {_CONTENT_CHECKS} model blake2b {digest}"


# Bumped when the checks a user's file passes before its images are kept change (2: irregular tokens;
# 3: the families' single splits on the compiled encoder, and files on tokenizers remembered too).
_CONTENT_CHECKS = 3


def seen_tokenizer_json(name: str, text: str, source: str) -> Tokenizer | None:
    """A user's ``tokenizer.json`` that loaded before (this text, this toklane release): from its checked
    skeleton and its ranks (compiled encoder) or ids (``tokenizers``) in the disk cache, without parsing
    or checking the JSON again (:func:`hf_json_tokenizer` stored them once it loaded); None where it did not."""
    key = _content_key(text)
    stored = image_cache.lookup("json-skeleton", key, json_from_payload)
    if stored is None:
        return None

    @functools.cache
    def full() -> Any:
        return load_json(text, source, "tokenizer.json")

    return hf_json_tokenizer(name, text, source=source, parsed=stored, full=full, checked=True, cache_by_content=True)


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
    return _tokenizer_over(name, backend, source=source, aliases=aliases, eos=eos)


def _sentencepiece_json_tokenizer(
    name: str,
    tokenizer_json: Callable[[], str],
    data: Any,
    merges: SentencePieceMerges,
    ids: list[int] | None,
    *,
    source: str,
    aliases: Iterable[str] = (),
    eos: Iterable[str] = (),
) -> Tokenizer:
    """A checked SentencePiece-style ``tokenizer.json`` (``data``, parsed whole): its merges on the compiled
    encoder, HF ``tokenizers`` over it built on first need (:class:`.engines.sentencepiece_bpe.
    SentencePieceJsonBackend`). HF builds the file's other steps now, without its vocabulary and merges
    (a few ms; those two were checked as the merges were built), so a file HF refuses fails at load."""
    from tokenizers import Tokenizer as HFTokenizer

    skeleton = json_skeleton(data)
    skeleton["model"]["merges"] = []
    steps = build_engine(
        source,
        "not a valid tokenizer.json: building it",
        lambda: HFTokenizer.from_str(json.dumps(skeleton, ensure_ascii=False)),
    )
    added = [AddedToken(t["content"], t["id"], bool(t.get("special"))) for t in data["added_tokens"]]
    known = ids if ids is not None else _file_ids(data) or [t.id for t in added]

    def exact() -> HFBackend:
        return build_engine(source, "not a valid tokenizer.json: building it", lambda: HFBackend(tokenizer_json(), ids))

    from .engines.sentencepiece_bpe import SentencePieceJsonBackend

    backend = SentencePieceJsonBackend(exact, merges, added, known, _template(steps))
    return _tokenizer_over(name, backend, source=source, aliases=aliases, eos=eos)


def _template(hf: Any) -> tuple[Sequence[int], Sequence[int]] | None:
    """The ids HF ``tokenizers``' post-processor puts before and after a text (``hf``: any tokenizer with
    the file's post-processor), or None where a probe does not show them apart."""
    try:
        plain = hf.encode("a", add_special_tokens=False).ids
        full = hf.encode("a", add_special_tokens=True).ids
    except Exception:  # (HF then applies it, on the text itself)
        return None
    return surrounding(plain, full) if plain else None


def _tokenizer_over(name: str, backend: Any, *, source: str, aliases: Iterable[str], eos: Iterable[str]) -> Tokenizer:
    """The :class:`Tokenizer` over a tokenizer.json's ``backend`` (its end-of-sequence tokens guessed from
    the added tokens where ``eos`` names none)."""
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


def deprecated_tekken_specials() -> list[dict[str, object]]:
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
        tekken = parse_tekken(data, source, deprecated_tekken_specials)
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
    """A SentencePiece ``.model`` file (BPE with byte fallback, or Unigram): its merges on toklane's
    compiled encoder where they run there exactly (:mod:`.engines.sentencepiece_bpe`), else the
    ``sentencepiece`` library, the reference for these files (:mod:`.engines.sentencepiece`), which
    decodes in both. The file is checked first (:func:`~toklane.tokenizer.files.parse_sentencepiece`);
    the library is the ``sentencepiece`` extra."""
    from .engines import sentencepiece as sp_engine
    from .engines import sentencepiece_bpe

    source = os.fspath(path)
    data = read_bytes(path, source)
    # The checked model from the disk cache where an image of it is (keyed by the file's bytes: reading
    # its 32K pieces in Python is most of a load otherwise).
    model = image_cache.cached(
        "sentencepiece-model",
        _bytes_key(data),
        lambda: parse_sentencepiece(data, source),
        model_payload,
        lambda payload: model_from_payload(payload, data),
    )
    if not sp_engine.available():
        raise TokenizerLoadError(
            source, "a SentencePiece .model file needs the sentencepiece library (pip install 'toklane[sentencepiece]')"
        )
    plan = choose_engine(SentencePieceSpec(sentencepiece_bpe.model_refusal(model)))
    merges = None
    if plan.engine == "compiled":
        try:
            merges = sentencepiece_bpe.SentencePieceMerges.of_model(model)
        except (ValueError, OverflowError) as exc:  # (a table the encoder refuses: the library reads it)
            plan = choose_engine(SentencePieceSpec(f"the compiled encoder refuses its pieces: {exc}"))
    backend = sp_engine.SentencePieceBackend(model, merges, source)
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
    kind = f"a SentencePiece {model.kind} model{' with byte fallback' if model.byte_fallback else ''} (.model file)"
    tok.engine_reason = reason or f"{plan.engine}: {kind}: {plan.reason}"
    return tok
