"""How a row of the bundled table (:mod:`.bundled`) becomes a :class:`Tokenizer`: :func:`load_bundled`
reads the row's data by its kind -- from the disk cache where an image of it is -- and builds the engine
:func:`.engines.choose.choose_engine` plans for it, once. Files of the kinds users bring too (DeepSeek-V4's
``tokenizer.json``, ``tekken.json``, ``.model`` files, ``.tiktoken`` files) load through
:mod:`.user_files`, as a user's would."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..errors import TokenizerLoadError
from . import image_cache, irregular
from .assembly import RankedFamily, exact_engine, fast_ranks_engine, ranked_tokenizer
from .bundled import (
    BundledSource,
    BundledTokenizer,
    QuicktokVocabulary,
    SentencePieceFile,
    TekkenFile,
    TiktokenRanksFile,
    TokenizerJsonFile,
    package_dir,
)
from .core import Tokenizer
from .engines import quickranks
from .engines.choose import choose_engine
from .engines.quickranks import CheckedEngine
from .engines.quicktok import QuicktokEngine
from .engines.tiktoken import TiktokenEngine
from .files import TekkenData, load_json, parse_tekken, read_text
from .user_files import (
    deprecated_tekken_specials,
    hf_json_tokenizer,
    json_from_payload,
    json_payload,
    json_skeleton,
    read_tiktoken_ranks,
    sentencepiece_tokenizer,
    tekken_tokenizer,
    tiktoken_file_tokenizer,
)


def load_bundled(row: BundledTokenizer, aliases: Iterable[str] | None = None) -> Tokenizer:
    """The tokenizer of ``row`` (``aliases``: the names it answers to; the row's own by default)."""
    load: Callable[[str, Any, tuple[str, ...]], Tokenizer] = _LOADERS[type(row.source)]
    tok = load(row.name, row.source, row.aliases if aliases is None else tuple(aliases))
    tok.bundled = True
    return tok


# --------------------------------------------------------------------------- quicktok's vocabularies


def _quicktok_vocabulary(name: str, source: QuicktokVocabulary, aliases: tuple[str, ...]) -> Tokenizer:
    """A vocabulary quicktok ships: its ranks (from the disk cache) on the engine planned for its pattern
    (the compiled encoder, which builds far sooner than quicktok's own engine); quicktok's engine where
    that is the plan (toklane's compiled module not built)."""
    family, extras = source.family, dict(source.extra_spellings)
    if choose_engine(source.spec()).engine == "quicktok":
        return _quicktok(name, source.encoding, family, aliases)
    ranks, vocab = _quicktok_ranks(source.encoding, family, extras)
    hidden = irregular.stored_irregular(irregular.quicktok_key(source.encoding))
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


def _quicktok_ranks(
    encoding: str, family: RankedFamily, extra_spellings: dict[str, int]
) -> tuple[dict[bytes, int], Path]:
    """The ranks quicktok ships for ``encoding``, and the file they come from: from the disk cache where
    an image of them is (keyed by that file and its special tokens' file), else read through quicktok,
    its special tokens checked against ``family``'s and ``extra_spellings`` then."""
    data = package_dir("quicktok", QuicktokVocabulary.distribution) / "data"
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


def _quicktok(name: str, encoding: str, family: RankedFamily, aliases: Iterable[str]) -> Tokenizer:
    """quicktok's own engine for ``encoding`` (where toklane's compiled encoder is not built)."""
    folder = package_dir("quicktok", QuicktokVocabulary.distribution)
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


def _quicktok_engine(
    name: str, encoding: str, family: RankedFamily, enc: Any, n_ordinary: int
) -> CheckedEngine | TiktokenEngine:
    """quicktok's bundled ``encoding`` checked (:class:`CheckedEngine`). A vocabulary with
    irregular tokens (:mod:`.irregular`) is encoded by quicktok over its ranks without
    them (a build of its own; ``enc`` is then dropped)."""
    fast = QuicktokEngine(enc, n_ordinary)
    hidden = irregular.stored_irregular(irregular.quicktok_key(encoding))
    ranks = None
    if hidden is None:  # a quicktok release the stored table does not know: a slow pass
        ranks = {data: i for i, data in fast.iter_token_bytes()}
        hidden = irregular.find_irregular(ranks)
    found = None
    if hidden:
        if ranks is None:
            ranks = {data: i for i, data in fast.iter_token_bytes()}
        found = irregular.irregular_tokens(ranks, hidden)
        regular = quickranks.quicktok_from_ranks(ranks, family.pattern, nfc=family.nfc, hidden=hidden)
        if regular is None or found is None:  # tiktoken alone: exact
            return exact_engine(name, family.pattern, fast)()
        fast = QuicktokEngine(regular, n_ordinary, hidden=found.tokens)
    return CheckedEngine(fast, exact_engine(name, family.pattern, fast), nfc=family.nfc, irregular=found)


# --------------------------------------------------------------------------- files in data packages


def _tiktoken_ranks_file(name: str, source: TiktokenRanksFile, aliases: tuple[str, ...]) -> Tokenizer:
    path = source.file.locate()
    # The parsed ranks from the disk cache where an image of them is (reading the base64 ranks is most of
    # a load otherwise).
    ranks = image_cache.ranks("tiktoken-ranks", path, lambda: read_tiktoken_ranks(path))
    return tiktoken_file_tokenizer(name, path, source.family, aliases=aliases, ranks=ranks)


def _tokenizer_json_file(name: str, source: TokenizerJsonFile, aliases: tuple[str, ...]) -> Tokenizer:
    """A ``tokenizer.json`` a data package ships (DeepSeek-V4's: its pre-tokeniser as one pattern and its
    merges as ranks on the compiled encoder, :mod:`.deepseek_v4`; ids equal to HF ``tokenizers``, tested),
    loaded as a user's file is (:func:`.user_files.hf_json_tokenizer`), trusted.

    The file's JSON is parsed only where the disk cache holds no image of its skeleton
    (:func:`json_skeleton`) or of its ranks: parsing its vocabulary and merges is most of a load."""
    path = source.file.locate()
    where = str(path)

    @functools.cache
    def text() -> str:
        return read_text(path)

    @functools.cache
    def full() -> Any:
        return load_json(text(), where, "tokenizer.json")

    parsed = image_cache.cached(
        "json-skeleton", image_cache.file_key(path), lambda: json_skeleton(full()), json_payload, json_from_payload
    )
    return hf_json_tokenizer(
        name,
        text,
        source=where,
        aliases=aliases,
        eos=source.eos,
        parsed=parsed,
        full=full,
        trusted=True,
        cache_ranks=True,
    )


def _tekken_file(name: str, source: TekkenFile, aliases: tuple[str, ...]) -> Tokenizer:
    path = source.file.locate()
    where = os.fspath(path)
    parsed: list[TekkenData] = []

    def parse() -> TekkenData:
        if not parsed:
            data = load_json(read_text(path), where, "tekken.json")
            parsed.append(parse_tekken(data, where, deprecated_tekken_specials))
        return parsed[0]

    # The checked file from the disk cache where images of it are (parsing the JSON and 130K base64
    # tokens is most of the load otherwise): its header, and its ranks.
    key = image_cache.file_key(path)
    header = image_cache.cached("tekken-header", key, lambda: _tekken_header(parse()), json_payload, json_from_payload)
    ranks = image_cache.cached_ranks("tekken-ranks", key, lambda: image_cache.as_dict(parse().ranks))
    names = {int(i): name for i, name in header["special_names"].items()}
    tekken = TekkenData(header["pattern"], header["n_special"], header["vocab_size"], ranks, names)
    return tekken_tokenizer(name, path, aliases=aliases, parsed=tekken)


def _tekken_header(tekken: TekkenData) -> dict[str, Any]:
    return {
        "pattern": tekken.pattern,
        "n_special": tekken.n_special,
        "vocab_size": tekken.vocab_size,
        "special_names": {str(i): name for i, name in tekken.special_names.items()},
    }


def _sentencepiece_file(name: str, source: SentencePieceFile, aliases: tuple[str, ...]) -> Tokenizer:
    """A SentencePiece model a data package ships: its merges on the compiled encoder."""
    return sentencepiece_tokenizer(name, source.file.locate(), aliases=aliases)


#: Each kind of bundled data and how it loads.
_LOADERS: dict[type[BundledSource], Callable[[str, Any, tuple[str, ...]], Tokenizer]] = {
    QuicktokVocabulary: _quicktok_vocabulary,
    TiktokenRanksFile: _tiktoken_ranks_file,
    TokenizerJsonFile: _tokenizer_json_file,
    TekkenFile: _tekken_file,
    SentencePieceFile: _sentencepiece_file,
}
