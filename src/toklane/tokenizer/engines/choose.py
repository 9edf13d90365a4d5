"""Which engine runs a tokenizer, and why: :func:`choose_engine`, the one place that decides.

Every loader -- a bundled vocabulary (:mod:`..bundled` rows say only what their data is), a user's
file of any kind -- asks it for an :class:`EnginePlan` and builds the engine that plan names, once.
What it reads, by kind of spec:

* :class:`RanksSpec` (a ranks table and its one pattern: a ``.tiktoken`` file, ``tekken.json``, the
  bundled ranks vocabularies): **compiled** (``toklane._bpe``) where toklane compiles the pattern;
  else **quicktok** where it has a scanner for it (with tiktoken for the words it may read
  differently); else **tiktoken**. fastokens takes over once it pays where it runs the vocabulary.
* :class:`SentencePieceSpec` (a checked ``.model`` file): its merges on the **compiled** encoder
  where they run there exactly (:func:`.sentencepiece_bpe.model_refusal`), else the **sentencepiece**
  library, its reference.
* a checked ``tokenizer.json`` (its parsed data or :class:`~..files.Pipeline`):

1. **compiled** (``toklane._bpe``) where the pre-tokeniser is one toklane compiles by hand -- DeepSeek-V4's
   three splits (:mod:`..deepseek_v4`; the file loaded from any folder, as fast as the bundled
   ``deepseek-v4``), or one split by the Llama 3, Qwen2/3, Qwen3.5, o200k or tekken pattern
   (:mod:`..compiled_pipelines`) -- and the merges replay as ranks. Loaded again, it comes from the
   disk cache in a fraction of HF ``tokenizers``' time.
2. A SentencePiece-style file (BPE with byte fallback after Prepend + Replace or Metaspace: Llama 2,
   Mistral files) runs its merges on the compiled encoder too, HF **tokenizers** beside them for
   decoding (:mod:`.sentencepiece_bpe`; no fastokens: the merges there are as fast or faster).
3. Otherwise HF **tokenizers**, the reference, from load.
4. Either way (1 or 3), **fastokens** (:mod:`.fastokens`) replaces it once it pays (:mod:`.staged`) where the
   pipeline is one it runs exactly: every step below is one that the hypothesis tests over generated
   pipelines prove equal to HF ``tokenizers`` (``tests/tokenizer/test_user_files.py``). fastokens
   itself refuses NFKC, NFD, NFKD, Strip, Punctuation, Whitespace and WhitespaceSplit.

``toklane models --explain PATH`` prints the plan.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .. import patterns
from ..files import Pipeline
from . import fastokens, quickranks
from .compiled import NATIVE as COMPILED_BUILT
from .compiled import handles as compiled_handles

#: How a plan's reason says why a SentencePiece-style file is not on its compiled merges.
SENTENCEPIECE_REFUSED = "SentencePiece-style, but not on its compiled merges: "

#: Steps fastokens runs exactly as HF ``tokenizers`` (proven by the tests named above).
FASTOKENS_NORMALIZERS = frozenset(("NFC", "Lowercase", "Replace", "Prepend"))
FASTOKENS_PRE_TOKENIZERS = frozenset(("Split", "ByteLevel", "Digits"))
# Decoders: fastokens decodes ByteLevel exactly; the others (SentencePiece-style files) are decoded by the
# engine it replaced, as fastokens keeps special tokens' text where HF drops it (FastokensBackend.decode).
FASTOKENS_DECODERS = frozenset(("ByteLevel", "Replace", "ByteFallback", "Fuse", "Strip"))
FASTOKENS_POST_PROCESSORS = frozenset(("ByteLevel", "TemplateProcessing"))


@dataclass(frozen=True)
class EnginePlan:
    """What serves a tokenizer from load (``engine``), what replaces it once it pays (``upgrade``,
    or None) and why, in one line each."""

    engine: str
    reason: str
    upgrade: str | None = None
    upgrade_reason: str = ""
    #: "NFKC" where fastokens runs the file without its NFKC normalizer, for the texts NFKC leaves as
    #: they are (:func:`.compiled.is_nfkc`); the others stay on the engine from load.
    unless_changed_by: str | None = None
    #: A SentencePiece-style file's merges on the compiled encoder (:mod:`.sentencepiece_bpe`), HF
    #: ``tokenizers`` beside them; ``otherwise``: the plan where its vocabulary or merges refuse that.
    sentencepiece: bool = False
    otherwise: EnginePlan | None = None

    def explain(self) -> str:
        """The plan in one line."""
        if self.upgrade is None:
            return f"{self.engine}: {self.reason}"
        return f"{self.engine}, then {self.upgrade}: {self.reason}; {self.upgrade_reason}"


_UNSEEN: Any = object()


def fastokens_refusal(pipeline: Pipeline, *, conflict: str | None = _UNSEEN) -> str | None:
    """Why fastokens does not run ``pipeline`` (a step not proven exact, an option it reads
    differently), or ``None`` where it does. ``conflict``: :func:`added_order_conflict` of its added
    tokens, where the caller has it already."""
    if not fastokens.available():
        return "fastokens is not installed"
    model = pipeline.model
    if pipeline.model_type != "BPE":
        return f"a {pipeline.model_type} model is not proven exact on fastokens"
    for key in ("dropout", "continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(key) is not None:
            return f"BPE option {key} is not proven exact on fastokens"
    for steps, allowed, what in (
        (pipeline.normalizers, FASTOKENS_NORMALIZERS, "normalizer"),
        (pipeline.pre_tokenizers, FASTOKENS_PRE_TOKENIZERS, "pre-tokenizer"),
        (pipeline.decoders, FASTOKENS_DECODERS, "decoder"),
        (pipeline.post_processors, FASTOKENS_POST_PROCESSORS, "post-processor"),
    ):
        for step in steps:
            if step.get("type") not in allowed:
                return f"{what} {step.get('type')} is not one fastokens runs exactly"
    for step in pipeline.pre_tokenizers + pipeline.normalizers:
        pattern = step.get("pattern")
        regex = pattern.get("Regex") if isinstance(pattern, dict) else None
        if isinstance(regex, str):
            problem = regex_refusal(regex)
            if problem is not None:
                return f"{step.get('type')} regex: {problem}"
    return _added_refusal(pipeline, conflict)


# Constructs whose meaning differs between Oniguruma (HF tokenizers: Ruby syntax, where ``^``/``$`` are
# line anchors) and PCRE2 (fastokens), or that the tests do not cover: escapes, and group openings.
_ODD_ESCAPES = frozenset("AZzbBGhHRXKkgyY0123456789")
_ODD_GROUPS = ("(?<", "(?P", "(?#", "(?~", "(?(", "(?m", "(?s", "(?x", "(?-", "(?a", "(?u", "(?d", "(?l")


def regex_refusal(regex: str) -> str | None:
    """Why a pre-tokeniser regex may match differently under PCRE2 than under Oniguruma, or None:
    anchors, word boundaries, back-references, POSIX brackets and unusual groups are refused (the
    load-time probes of :mod:`.staged` check the rest on every code point)."""
    depth = 0  # inside a character class
    i = 0
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            nxt = regex[i + 1 : i + 2]
            if nxt in _ODD_ESCAPES and nxt:
                return f"\\{nxt} may match differently"
            i += 2
            continue
        if c == "[":
            if regex.startswith("[:", i) and depth:
                return "a POSIX bracket may match differently"
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        elif not depth:
            if c in "^$":
                return f"{c!r} is a line anchor in HF tokenizers"
            if c == "(" and regex.startswith(_ODD_GROUPS, i):
                return f"the group {regex[i : i + 3]!r} may match differently"
        i += 1
    return None


def _added_refusal(pipeline: Pipeline, conflict: str | None = _UNSEEN) -> str | None:
    """Why fastokens would match ``pipeline``'s added tokens differently from HF, or None. Found by the
    generated-pipeline tests: HF gives an added token that is also in the vocabulary the vocabulary's
    id; it matches a ``normalized`` token by its normalised content; and it matches normalised tokens
    inside the pieces left between the others, so a piece's ends count as word boundaries for their
    ``single_word``/``lstrip``/``rstrip``. fastokens does none of these."""
    vocab = pipeline.model.get("vocab")
    added = pipeline.added_tokens
    for token in added:
        content = str(token.get("content"))
        known = vocab.get(content) if isinstance(vocab, dict) else None
        if known is not None and known != token.get("id"):
            return f"added token {content[:40]!r} has another id in the vocabulary"
        if token.get("normalized") and _normalized(content, pipeline.normalizers) != content:
            return f"added token {content[:40]!r} is matched normalised, and the normalizer changes it"
    mixed = len({bool(t.get("normalized")) for t in added}) > 1
    if mixed and any(t.get(k) for t in added for k in ("single_word", "lstrip", "rstrip")):
        return "added tokens mix normalized and not, with single_word/lstrip/rstrip"
    return added_order_conflict(added) if conflict is _UNSEEN else conflict


def added_order_conflict(added: list[dict[str, Any]]) -> str | None:
    """Where one pass over every added token (leftmost, then longest: toklane's engines, fastokens)
    can split a text differently from HF, which matches the tokens that are not ``normalized`` first
    and the ``normalized`` ones only in the pieces left between them: a token of the first kind
    inside one of the second (``世`` added as special, then ``世a`` as plain text: HF reads ``世`` in
    ``世ab``), or one of the second starting before one of the first and running into it. None where
    the two orders always agree (the bundled DeepSeek-V4 file: tests/tokenizer/test_user_files.py)."""
    first = [str(t.get("content")) for t in added if not t.get("normalized") and t.get("content")]
    second = [str(t.get("content")) for t in added if t.get("normalized") and t.get("content")]
    if not first or not second:
        return None
    from .base import _literals

    # (one scan per token of the second kind over a trie of the first; where the second kind is few,
    # a substring test of each first-kind token over them all, which costs less than building the trie:
    # DeepSeek-V4's 1,237 and 46)
    joined = "\x00".join(second) if len(second) <= 64 and not any("\x00" in f for f in first) else None
    inside = None if joined is not None and not any(f in joined for f in first) else _literals(first)
    prefixes = {c[:k] for c in first for k in range(1, len(c))}
    for content in second:
        hits = inside.find_all(content) if inside is not None else None
        if hits:
            return f"added token {content[:40]!r} holds a token that HF matches before it"
        if any(content[k:] in prefixes for k in range(1, len(content))):
            return f"added token {content[:40]!r} runs into a token that HF matches before it"
    return None


def _normalized(text: str, steps: tuple[dict[str, Any], ...]) -> str | None:
    """``text`` through the normalizer ``steps`` (None where this cannot tell: then it counts as changed)."""
    import re
    import unicodedata

    for step in steps:
        kind = step.get("type")
        if kind == "NFC":
            text = unicodedata.normalize("NFC", text)
        elif kind == "Lowercase":
            text = text.lower()
        elif kind == "Replace" and isinstance(step.get("pattern"), dict) and isinstance(step.get("content"), str):
            pattern = step["pattern"]
            if isinstance(pattern.get("String"), str):
                text = text.replace(pattern["String"], step["content"])
            else:
                try:
                    if re.search(str(pattern.get("Regex")), text):
                        return None
                except re.error:
                    return None
        else:  # Prepend, or a step fastokens does not run
            return None
    return text


def _only_nfkc(pipeline: Pipeline) -> bool:
    """Whether the pipeline's one normalizer step is NFKC (then text NFKC leaves as it is reads the same
    without it), its added tokens matched as they are written (a ``normalized`` one is matched in the
    normalised text: the same text, for that text)."""
    return [step.get("type") for step in pipeline.normalizers] == ["NFKC"]


def without_normalizer(data: dict[str, Any]) -> dict[str, Any]:
    """The tokenizer.json ``data`` without its normalizer."""
    return {**data, "normalizer": None}


@dataclass(frozen=True)
class RanksSpec:
    """A ranks table (token bytes -> rank) pre-tokenised by one ``pattern``; ``quicktok``: one of the
    vocabularies quicktok ships, with its own scanner for it."""

    pattern: str
    quicktok: bool = False


@dataclass(frozen=True)
class SentencePieceSpec:
    """A SentencePiece ``.model`` file: ``refusal``, why its merges do not run on the compiled encoder
    (:func:`.sentencepiece_bpe.model_refusal` of the checked model; None: they do)."""

    refusal: str | None


#: Why a ranks table runs on the engine its plan names.
RANKS_REASONS = {
    "compiled": "a ranks table whose pattern toklane compiles by hand (toklane._bpe: DeepSeek-V4, Qwen3.5/3.6, "
    "Qwen2/3, Llama 3, cl100k, o200k, tekken)",
    "quicktok": "a ranks table whose pattern quicktok has a hand-written scanner for; words it may read "
    "differently (irregular tokens, new code points, marks) go to tiktoken",
    "tiktoken": "a ranks table whose pattern neither toklane nor quicktok compiles: tiktoken's regex",
}


def quicktok_scanner_pattern(pattern: str) -> str:
    """The pattern whose quicktok scanner runs ``pattern`` (Qwen3.5/3.6's: Qwen2's, marks checked apart)."""
    return patterns.QWEN2 if pattern == patterns.QWEN3_5 else pattern


def choose_engine(spec: Any) -> EnginePlan:
    """The engine plan for ``spec`` (pure: builds nothing): a :class:`RanksSpec`, a
    :class:`SentencePieceSpec`, or a parsed, checked ``tokenizer.json`` (or its :class:`Pipeline`)."""
    if isinstance(spec, RanksSpec):
        return _ranks_plan(spec)
    if isinstance(spec, SentencePieceSpec):
        if spec.refusal is None and COMPILED_BUILT:
            return EnginePlan(
                "compiled",
                "its merges by score on toklane's compiled encoder, exact to the sentencepiece library (which "
                "decodes, and encodes what the encoder declines)",
            )
        refusal = spec.refusal or "toklane._bpe is not built or TOKLANE_PURE_PYTHON is set"
        return EnginePlan("sentencepiece", f"the sentencepiece library, its reference ({refusal})")
    return _json_plan(spec)


def _ranks_plan(spec: RanksSpec) -> EnginePlan:
    """:func:`choose_engine` for a ranks table."""
    if compiled_handles(spec.pattern):
        engine = "compiled"
    elif (spec.quicktok or quicktok_scanner_pattern(spec.pattern) in quickranks.SCANNERS) and quickranks.available():
        engine = "quicktok"
    else:
        engine = "tiktoken"
    if engine == "tiktoken" or not fastokens.available():  # (tiktoken alone: a pattern nothing else compiles)
        return EnginePlan(engine, RANKS_REASONS[engine])
    return EnginePlan(
        engine,
        RANKS_REASONS[engine],
        "fastokens",
        "fastokens, where it runs the vocabulary exactly, is built in the background once encoding has taken "
        "about as long as building it",
    )


def _json_plan(data: Any) -> EnginePlan:
    """:func:`choose_engine` for a checked ``tokenizer.json``."""
    pipeline = data if isinstance(data, Pipeline) else Pipeline(data)
    plan = _plan(pipeline)
    if pipeline.kind != "SentencePiece BPE":
        return plan
    from . import sentencepiece_bpe  # (here: most files are not SentencePiece-style, and import toklane stays lean)

    refusal = sentencepiece_bpe.json_refusal(pipeline)
    if refusal is not None:
        return dataclasses.replace(plan, reason=f"{plan.reason} ({SENTENCEPIECE_REFUSED}{refusal})")
    return EnginePlan(
        "compiled",
        f"{pipeline.describe()}: a SentencePiece-style file, whose merges run in toklane's compiled encoder"
        " as HF tokenizers' BPE runs them (HF tokenizers beside it decodes)",
        sentencepiece=True,
        otherwise=plan,
    )


def _plan(pipeline: Pipeline) -> EnginePlan:
    """:func:`choose_engine`'s plan for any but a SentencePiece-style file."""
    from ..compiled_pipelines import compiled_pipeline

    steps = pipeline.describe()
    conflict = added_order_conflict(pipeline.added_tokens)
    refusal = fastokens_refusal(pipeline, conflict=conflict)
    compiled = compiled_pipeline(pipeline.data)
    if compiled is not None and compiled.refusal is None and conflict is None:
        engine = "compiled" if COMPILED_BUILT else "tiktoken"
        reason = f"{steps}: {compiled.label}, which toklane compiles; its merges replay as ranks"
        if not COMPILED_BUILT:
            reason += " (toklane._bpe is not built or TOKLANE_PURE_PYTHON is set: its pattern on tiktoken)"
    else:
        engine = "tokenizers"
        reason = f"{steps}: HF tokenizers (the reference) from load"
        if compiled is not None:
            reason += f" ({compiled.label} is compiled, but {compiled.refusal or conflict})"
        elif conflict is not None:
            reason += f" ({conflict})"
        elif refusal is None:
            reason += ", as nothing toklane compiles runs this pre-tokeniser"
    if refusal is not None:
        without = fastokens_refusal(Pipeline(without_normalizer(pipeline.data))) if _only_nfkc(pipeline) else refusal
        if without is None:  # (fastokens over the file without its NFKC step)
            return EnginePlan(
                engine,
                reason,
                "fastokens",
                "fastokens (which runs no NFKC step) over the file without its NFKC normalizer, for the texts "
                "NFKC leaves as they are (most text; the others stay on the engine from load), is built in the "
                "background once encoding has taken about as long as building it",
                unless_changed_by="NFKC",
            )
        # (what keeps fastokens off besides an NFKC step it does not run)
        return EnginePlan(engine, f"{reason}; not fastokens: {without}")
    return EnginePlan(
        engine,
        reason,
        "fastokens",
        "fastokens (exact for every step here, ~3x compiled, ~50x tokenizers) is built in the background "
        "once encoding has taken about as long as building it",
    )
