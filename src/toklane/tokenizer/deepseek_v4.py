"""DeepSeek-V4's ``tokenizer.json`` as one ranked-BPE pattern and a ranks table.

The HF pre-tokeniser is a sequence of three isolated regex splits, then
byte-level BPE by merges::

    Split(\\p{N}{1,3}) -> Split([CJK]+) -> Split(P3) -> ByteLevel -> BPE

where ``[CJK]`` is ``[\\u4e00-\\u9fa5\\u3040-\\u309f\\u30a0-\\u30ff]`` and ``P3``
is the Llama-3-like pattern in :data:`P3`. The splits are sequential: P3 runs
inside the segments the digit and CJK splits leave (maximal runs of characters
that are neither ``\\p{N}`` nor CJK) and every *unmatched* span is kept as a
piece of its own (``Isolated``). :data:`PATTERN` is one leftmost-first regex
for a ranked-BPE engine whose matches are exactly those pieces:

* digits in chunks of three; CJK runs (no CJK character is ``\\p{N}``);
* P3 with every class that could reach a digit or a CJK character made to
  exclude them, so no match crosses a segment; its lookahead ``(?!\\S)`` sees
  a segment's end where the next character is a digit or CJK;
* one last alternative for what P3 leaves unmatched: a run of characters that
  no P3 alternative matches (not whitespace, letter, mark, punctuation, symbol,
  digit or CJK: controls, format characters, private use, unassigned), each of
  which does not start a P3 match -- it would when followed by a letter or mark
  (``[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+``).

BPE: the vocabulary's byte-level merges produce their results in increasing id
order (checked at load, :func:`ranks`), so ranked BPE over ``bytes -> id`` merges
the same pairs in the same order. Equality with HF ``tokenizers`` is tested on
large corpora, every code point and hypothesis-generated text
(``tests/tokenizer/test_deepseek_v4_engine.py``).
"""

from __future__ import annotations

from array import array
from typing import Any

from ..errors import TokenizerLoadError
from . import patterns
from .bytelevel import token_string_to_bytes

# The pattern and the splits it reproduces live with the other families' patterns.
CJK = patterns.DEEPSEEK_V4_CJK
P3 = patterns.DEEPSEEK_V4_P3
PATTERN = patterns.DEEPSEEK_V4


def ranks(model: Any, source: object, *, allow_ignore_merges: bool = False) -> dict[bytes, int]:
    """:func:`replay`'s ranks."""
    return replay(model, source, allow_ignore_merges=allow_ignore_merges)[0]


def replay(model: Any, source: object, *, allow_ignore_merges: bool = False) -> tuple[dict[bytes, int], array]:
    """``bytes -> id`` of a byte-level BPE ``model`` (tokenizer.json's ``"model"``)
    whose merges can be replayed as ranks: every token but the added ones is a
    byte-level string, and merge ``k`` yields the token ``a + b`` whose id grows
    with ``k`` (then the pair of lowest merge rank is the pair whose result has
    the lowest id). Tokens that are not byte-level strings (added tokens that
    also sit in the vocabulary) are left out. Anything else is a
    :class:`TokenizerLoadError`. ``allow_ignore_merges``: the caller checks that every token is built by
    its merges from its own bytes (then looking a whole pre-token up first, as ``ignore_merges`` does,
    finds what the merges build). Also returned: each merge's split, as the byte length of its left part
    at its result's id (what :func:`toklane._bpe.irregular` checks against ranked BPE's own order)."""
    if not isinstance(model, dict) or model.get("type") != "BPE":
        raise TokenizerLoadError(source, "not a BPE model")
    for key in ("dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(key) is not None:
            raise TokenizerLoadError(source, f"BPE option {key!r} is set; it cannot be replayed as ranks")
    if model.get("byte_fallback") or (model.get("ignore_merges") and not allow_ignore_merges):
        raise TokenizerLoadError(source, "BPE options byte_fallback/ignore_merges cannot be replayed as ranks")
    vocab = model.get("vocab")
    merges = model.get("merges")
    if not isinstance(vocab, dict) or not isinstance(merges, list):
        raise TokenizerLoadError(source, "BPE model without vocab or merges")
    from .engines.compiled import replay_merges

    native = replay_merges(vocab, merges)
    if native is None:
        return _replay(vocab, merges, source)
    if native[0] is None:  # (what failed, and where)
        raise _refusal(source, native[1], native[2], merges)
    left = array("I")
    left.frombytes(native[1])
    return native[0], left


def _refusal(source: object, what: str, detail: Any, merges: list[Any]) -> TokenizerLoadError:
    """Why merges do not replay, as both replays name it: ``same-bytes`` (``detail``: a token),
    ``merge`` (``detail``: its index) or ``counts``."""
    if what == "same-bytes":
        reason = f"two tokens spell the same bytes ({detail!r})"
    elif what == "merge":
        reason = f"merge {detail} ({merges[detail]!r}) cannot be replayed as a rank"
    else:
        reason = "the vocabulary is not 256 bytes plus one token per merge"
    return TokenizerLoadError(source, reason)


def _replay(vocab: dict[str, Any], merges: list[Any], source: object) -> tuple[dict[bytes, int], array]:
    """:func:`replay`'s two passes in Python (where ``toklane._bpe`` is not built: its reference)."""
    out: dict[bytes, int] = {}
    size: dict[str, int] = {}
    for token, i in vocab.items():
        data = token_string_to_bytes(token)
        if data is not None:
            if data in out:
                raise _refusal(source, "same-bytes", token, merges)
            out[data] = i
            size[token] = len(data)
    left = array("I", bytes(4 * (max((i for i in vocab.values() if isinstance(i, int)), default=0) + 1)))
    last = -1
    for k, merge in enumerate(merges):
        if isinstance(merge, str):
            a, sep, b = merge.partition(" ")
        elif isinstance(merge, list) and len(merge) == 2:
            (a, b), sep = merge, " "
        else:
            a = b = sep = None
        i = vocab.get(a + b) if sep and isinstance(a, str) and isinstance(b, str) else None
        if i is None or i <= last or a not in vocab or b not in vocab:
            raise _refusal(source, "merge", k, merges)
        last = i
        left[i] = size.get(a, 0)
    if len(out) != len(merges) + 256 or sum(len(b) == 1 for b in out) != 256:
        raise _refusal(source, "counts", None, merges)
    return out, left


# The pre-tokeniser :data:`PATTERN` reproduces, as tokenizer.json spells it.
PRE_TOKENIZER = {
    "type": "Sequence",
    "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": r"\p{N}{1,3}"}, "behavior": "Isolated", "invert": False},
        {"type": "Split", "pattern": {"Regex": f"[{CJK}]+"}, "behavior": "Isolated", "invert": False},
        {
            "type": "Split",
            "pattern": {"Regex": P3.replace(r"\r\n", "\r\n")},
            "behavior": "Isolated",
            "invert": False,
        },
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
    ],
}
