"""Pre-tokenisation regexes of the supported byte-level BPE families.

These are facts about each model's tokenizer (as published in tiktoken and in
the models' ``tokenizer.json`` files); BPE merges never cross a match of the
pattern, so the pattern is as much a part of the tokenizer as its ranks.
"""

from __future__ import annotations

import re
import warnings

CL100K = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

O200K = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

LLAMA3 = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

# Qwen2 / Qwen2.5 / Qwen3: like Llama-3 but digits one at a time. Input is NFC-normalised.
QWEN2 = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

# Qwen3.5 / Qwen3.6: combining marks (\p{M}) join letters. Input is NFC-normalised.
QWEN3_5 = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

# Mistral tekken v3: o200k's case-aware grammar without the contractions, digits one at a time.
TEKKEN = (
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
    r"""|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
    r"""|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

# DeepSeek-V4: its three isolated splits as one leftmost-first pattern (how, and why each alternative is
# where it is: toklane.tokenizer.deepseek_v4). The second split's class: CJK unified ideographs (to
# U+9FA5), hiragana, katakana.
DEEPSEEK_V4_CJK = "\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff"

# The third split, as in the file.
DEEPSEEK_V4_P3 = (
    r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"""
    r"""| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

_DEEPSEEK_V4_LM = rf"[[\p{{L}}\p{{M}}]--[{DEEPSEEK_V4_CJK}]]"  # letters and marks that are not CJK
_DEEPSEEK_V4_OTHER = (
    rf"[^\s\p{{L}}\p{{M}}\p{{P}}\p{{S}}\p{{N}}{DEEPSEEK_V4_CJK}]"  # what no P3 alternative starts with alone
)

# Leftmost-first: at each position the first alternative that matches wins, so
# only alternatives that can match at the same position must keep P3's order
# (the third one before `` ?[PS]+``; the letters one and `` ?[PS]+`` before
# ``\s+``; the whitespace ones among themselves). Digits, CJK and the unmatched
# run start at characters no other alternative starts at (an "other" character
# starts the letters alternative only when a letter or mark follows, where the
# unmatched run stops). The most frequent alternatives come first: faster
# on code than the file's order (measured).
_DEEPSEEK_V4_ALTERNATIVES = (
    rf"[^\r\n\p{{L}}\p{{P}}\p{{S}}\p{{N}}{DEEPSEEK_V4_CJK}]?{_DEEPSEEK_V4_LM}+",
    r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+""",
    rf" ?[[\p{{P}}\p{{S}}]--[{DEEPSEEK_V4_CJK}]]+[\r\n]*",
    r"\p{N}{1,3}",
    r"\s*[\r\n]+",
    rf"\s+(?![^\s\p{{N}}{DEEPSEEK_V4_CJK}])",
    r"\s+",
    rf"[{DEEPSEEK_V4_CJK}]+",
    rf"(?:{_DEEPSEEK_V4_OTHER}(?!{_DEEPSEEK_V4_LM}))+",
)
DEEPSEEK_V4 = "|".join(_DEEPSEEK_V4_ALTERNATIVES)

# cl100k's pattern as tiktoken first spelled it, before it made the quantifiers possessive (a speed-up
# for its regex engine that reads every text the same): Llama 3's. fastokens runs this spelling several times faster
# than the possessive one, so it is the one fastokens gets (the upgrade's probes read every code point
# both ways, and tests/tokenizer/test_exactness.py compares the upgraded engine with tiktoken's ids).
FASTOKENS_SPELLING = {CL100K: LLAMA3}


# A regex escape: ``\p{..}``/``\pX`` Unicode classes (which Python's ``re`` lacks), or any other one.
_ESCAPE = re.compile(r"\\(?:[pP](?:\{[^}]*\}|[A-Za-z])|.)", re.S)


def can_match_empty(pattern: str) -> bool | None:
    """Whether a pre-tokenisation pattern has a way to match the empty string (its shortest match is
    empty, lookarounds aside, so a ``True`` is conservative): tiktoken's engine panics on an empty
    match. Read by Python's own regex parser with each ``\\p{..}`` class as ``\\w`` (one character
    either way); ``None`` where that parser cannot read the pattern."""
    from re import _parser  # the parser's width bounds: Python's re exposes no public form

    spelled = _ESCAPE.sub(lambda m: r"\w" if m.group()[1] in "pP" else m.group(), pattern)
    try:
        with warnings.catch_warnings():  # "possible nested set": class operations read as literals
            warnings.simplefilter("ignore", FutureWarning)
            shortest = _parser.parse(spelled).getwidth()[0]
    except (re.error, RecursionError, OverflowError, ValueError):
        return None
    return shortest == 0
