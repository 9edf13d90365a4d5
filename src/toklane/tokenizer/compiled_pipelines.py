"""Which ``tokenizer.json`` pipelines toklane's compiled encoder reproduces, and with what pattern.

A file runs on the compiled encoder (:mod:`.engines.compiled`) where its pre-tokeniser is one toklane
compiles -- DeepSeek-V4's three splits (:mod:`.deepseek_v4`), or one isolated split by a family's
pattern (Llama 3, Qwen2/3, Qwen3.5/3.6, o200k, tekken) before a byte-level step that adds no prefix
space and runs no regex of its own -- its normaliser is none, NFC or NFKC, it decodes byte-level, its
post-processor adds no token, and its added tokens are matched and decoded as they are written. Its
merges must also replay as ranks (:func:`.deepseek_v4.replay`, checked when it is built).

NFC and NFKC run as HF ``tokenizers`` computes them (:class:`.engines.hf.HFNormalizer`: its Unicode
tables are older than Python's), on the spans of text Python's tables say the form may change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import deepseek_v4, patterns
from .bytelevel import BYTE_TO_CHAR

#: The single split patterns the compiled encoder runs, as a ``tokenizer.json`` spells them, each with the
#: family it comes from (tiktoken's possessive cl100k spelling is left out: its ``$`` is a line anchor in
#: HF tokenizers).
SINGLE_SPLITS: dict[str, str] = {
    patterns.LLAMA3: "Llama 3's split",
    patterns.QWEN2: "Qwen2/3's split",
    patterns.QWEN3_5: "Qwen3.5's split",
    patterns.O200K: "o200k's split",
    patterns.TEKKEN: "tekken's split",
}

# Characters HF's ByteLevel decoder turns into other text wherever they are, added tokens included (``é``
# is the byte 0xE9 to it, ``Ġ`` a space): an added token holding one decodes differently from how it is
# written, which the compiled encoder's decoder does not copy (then HF tokenizers runs the file).
_REWRITTEN_BY_DECODER = frozenset(c for c in BYTE_TO_CHAR if len(c.encode()) > 1)

_NO_NORMALIZER = (None, {"type": "Sequence", "normalizers": []})
#: The normalisers the compiled encoder runs (as HF tokenizers does), alone or as a one-step sequence.
FORMS = ("NFC", "NFKC")


@dataclass(frozen=True)
class CompiledPipeline:
    """The pattern a file's pre-tokeniser comes to, the normal form it puts text in first (None, "NFC" or
    "NFKC"), and what it is; ``refusal``: why the compiled encoder still does not run the file (an added
    token it would match or decode differently), or None."""

    pattern: str
    form: str | None
    label: str
    refusal: str | None = None


def compiled_pipeline(data: Any) -> CompiledPipeline | None:
    """What the compiled encoder runs for a parsed ``tokenizer.json`` (see the module's rule), or None
    where its normaliser, pre-tokeniser, decoder or post-processor is not one it reproduces."""
    if not isinstance(data, dict):
        return None
    form = _form(data.get("normalizer"))
    if form == "":
        return None
    post = data.get("post_processor")
    decoder = data.get("decoder")
    added = data.get("added_tokens")
    if not (
        isinstance(decoder, dict)
        and decoder.get("type") == "ByteLevel"
        and (post is None or (isinstance(post, dict) and post.get("type") == "ByteLevel"))
        and isinstance(added, list)
        and all(
            isinstance(t, dict) and isinstance(t.get("content"), str) and isinstance(t.get("id"), int) for t in added
        )
    ):
        return None
    pre = data.get("pre_tokenizer")
    if pre == deepseek_v4.PRE_TOKENIZER:
        pattern, label = deepseek_v4.PATTERN, "DeepSeek-V4's pre-tokeniser"
    else:
        pattern = _single_split(pre)
        if pattern is None:
            return None
        label = SINGLE_SPLITS[pattern]
    return CompiledPipeline(pattern, form, label, _added_refusal(added, form))


def _form(normalizer: Any) -> str | None:
    """The normal form of a ``normalizer`` the compiled encoder runs: None (no normaliser), one of
    :data:`FORMS`, or "" (one it does not run)."""
    if normalizer in _NO_NORMALIZER:
        return None
    if isinstance(normalizer, dict) and normalizer.get("type") == "Sequence":
        steps = normalizer.get("normalizers")
        normalizer = steps[0] if isinstance(steps, list) and len(steps) == 1 else None
    kind = normalizer.get("type") if isinstance(normalizer, dict) else None
    return kind if kind in FORMS and list(normalizer) == ["type"] else ""


def _added_refusal(added: list[dict[str, Any]], form: str | None) -> str | None:
    """Why the compiled encoder, which matches added tokens in the text as it is, would match or decode
    one of ``added`` differently from HF, or None."""
    for token in added:
        content = token["content"]
        if token.get("single_word") or token.get("lstrip") or token.get("rstrip"):
            return f"added token {content[:40]!r} is matched with single_word/lstrip/rstrip"
        if form and token.get("normalized"):  # (HF finds it in the NFC text: 'Key' in '\u212aey')
            return f"added token {content[:40]!r} is matched in the {form}-normalised text"
        if not _REWRITTEN_BY_DECODER.isdisjoint(content):
            return f"added token {content[:40]!r} decodes as other text under HF's ByteLevel decoder"
    return None


def _single_split(pre: Any) -> str | None:
    """The pattern of ``Sequence[Split(pattern, Isolated), ByteLevel(no prefix space, no regex)]`` where it is
    one of :data:`SINGLE_SPLITS` (a CR or LF written as itself counts as its escape), else None."""
    steps = pre.get("pretokenizers") if isinstance(pre, dict) and pre.get("type") == "Sequence" else None
    if not isinstance(steps, list) or len(steps) != 2 or not all(isinstance(s, dict) for s in steps):
        return None
    split, byte_level = steps
    if not (
        byte_level.get("type") == "ByteLevel"
        and byte_level.get("add_prefix_space") is False
        and byte_level.get("use_regex") is False
        and split.get("type") == "Split"
        and split.get("behavior") == "Isolated"
        and split.get("invert") is False
        and isinstance(split.get("pattern"), dict)
        and list(split["pattern"]) == ["Regex"]
        and isinstance(split["pattern"]["Regex"], str)
    ):
        return None
    regex = split["pattern"]["Regex"].replace("\r", r"\r").replace("\n", r"\n")
    return regex if regex in SINGLE_SPLITS else None
