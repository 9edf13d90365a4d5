"""Cutting pathological inputs into pieces that encoding engines can take.

The regex engines behind tiktoken (fancy-regex) and HF ``tokenizers`` (Oniguruma)
give up on very long runs of horizontal whitespace: the pre-tokenisation
alternative ``\\s+(?!\\S)`` backtracks over the whole run, and tiktoken panics
(``PanicException``, a stack overflow) from 999,999 characters on, ``tokenizers``
(a retry limit) from about 9.5 million. Runs followed by a newline (matched by
``\\s*[\\r\\n]+``) and every other character class are fine.

:func:`encode_in_windows` cuts such a run (from ``2 * piece`` characters,
not followed by ``\\r``/``\\n``) so that no engine call sees it whole:

* at the run's start ``a``, exactly. The character before ``a`` is not
  whitespace, or it is a newline and the last one of its whitespace run (the
  run is not followed by one), so in every supported pre-tokeniser a pre-token
  ends at ``a``: no alternative of theirs takes horizontal whitespace after a
  non-whitespace character, and ``\\s*[\\r\\n]+`` ends at the last newline.
  The text before ``a`` then encodes the same alone: its last pre-token ends in
  a non-whitespace character or in a newline, where lookaheads (``(?!\\S)``)
  see the same as in the whole text, and what follows a cut is read alone as in
  the whole text (the patterns have no lookbehind). (Not cut there: a run that
  ends the text right after a newline, which cl100k's ``\\s++$`` joins to the
  newlines.) Tested against every reference with hypothesis.
* about every ``piece`` characters inside the run (the last piece at least
  ``piece`` long, so the engine still decides how the run's end joins what
  follows). The run was one pre-token; where BPE's result has a token boundary
  no merge ever crossed it, and there ``BPE(s) == BPE(s[:x]) + BPE(s[x:])``.
  A window reads :data:`OVERLAP` characters past the cut and keeps its ids up
  to its last token boundary before the cut; the next window starts there, in
  the same phase of merges. That this boundary is one of the whole run's (the
  artificial end of the window reaches back a few tokens, not 2,048
  characters) is checked, not proved: tests compare against the references on
  uniform, periodic and random whitespace runs up to the longest the references
  can take (999,998 characters for tiktoken).

Runs shorter than ``2 * piece`` are never cut.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

# Unicode White_Space: what ``\s`` matches in the Rust regex engines (checked
# against tiktoken in tests). Python's ``\s`` also matches U+001C..U+001F.
WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
)
HORIZONTAL = WHITESPACE.replace("\n", "").replace("\r", "")
_H = "[" + re.escape(HORIZONTAL) + "]"

# Pieces of 2**18 characters: cut runs are 2**19 .. and every engine call sees
# runs under 2**19 = 524,288 characters, half of tiktoken's limit.
RUN_PIECE = 1 << 18


def long_run_threshold(piece: int = RUN_PIECE) -> int:
    """Shortest run that :func:`split_long_runs` cuts (and the shortest text it scans)."""
    return 2 * piece


_finders: dict[int, re.Pattern[str]] = {}


def _finder(min_run: int) -> re.Pattern[str]:
    # The lookbehind makes a search start only at the first character of a
    # run, so scanning is linear however many shorter runs the text has.
    finder = _finders.get(min_run)
    if finder is None:
        finder = _finders[min_run] = re.compile(f"(?<!{_H}){_H}{{{min_run},}}")
    return finder


def _cuts(text: str, piece: int) -> list[tuple[int, bool]]:
    """Cut positions, each with whether it is exact (a run's start) or inside a run."""
    min_run = 2 * piece
    cuts: list[tuple[int, bool]] = []
    if len(text) < min_run:
        return cuts
    for match in _finder(min_run).finditer(text):
        start, end = match.span()
        if text[end : end + 1] in ("\r", "\n"):
            continue  # one \s*[\r\n]+ pre-token: engines take it whole
        if start and not (end == len(text) and text[start - 1] in "\r\n"):
            cuts.append((start, True))
        cuts.extend((cut, False) for cut in range(start + piece, end - piece + 1, piece))
    return cuts


def split_long_runs(text: str, piece: int = RUN_PIECE) -> list[str] | None:
    """``text`` cut around its long horizontal-whitespace runs (no overlap), or
    ``None`` if it has none (the caller then encodes it whole, unchanged).

    A run counts when it is at least ``2 * piece`` characters long and not
    followed by ``\\r`` or ``\\n``. ``"".join(result) == text``.
    """
    cuts = _cuts(text, piece)
    if not cuts:
        return None
    bounds = [0, *(cut for cut, _ in cuts), len(text)]
    return [text[bounds[k] : bounds[k + 1]] for k in range(len(bounds) - 1)]


# Cuts where every supported pre-tokeniser ends a pre-token, so the pieces on
# either side encode alone exactly as inside the whole text:
# * before a space that follows a non-whitespace character (no alternative takes
#   horizontal whitespace after a non-whitespace character; see the module
#   docstring), and
# * after a newline followed by a non-whitespace character other than ``/``: no
#   alternative takes such a character after a newline (the optional
#   one-character prefixes exclude ``\r``/``\n``, ``[\r\n]*`` ends a punctuation
#   run -- o200k's and tekken's ``[\r\n/]*`` goes on over slashes, so
#   ``".\n/usr"`` is ``".\n/"`` then ``"usr"`` there, and no cut is made before
#   a ``/`` --, the whitespace alternatives take whitespace only), and the whitespace run that
#   ends there is taken up to its last newline alone or followed by text
#   (``\s*[\r\n]+`` / cl100k's ``\s*[\r\n]`` come before ``\s+(?!\S)``; at the
#   text's end cl100k's ``\s++$`` takes the same span).
# The patterns have no lookbehind, so what follows a cut reads alone as in the
# whole text. Python's ``\s`` covers every Unicode White_Space character (and a
# few more), so ``[^\s]`` only ever finds real cuts. Tested against every
# reference with hypothesis (tests/tokenizer/test_fast_engines.py).
_SAFE_CUT = re.compile(r"(?<=[^\s]) |(?<=\n)(?=[^\s/])")


# From this many characters on, one text is cut at pre-token boundaries
# (:func:`parallel_pieces`) and its pieces encoded on all cores; each
# piece holds at least this many over two.
PARALLEL_MIN = 1 << 17


def piece_size(n: int, threads: int) -> int:
    """Piece length for ``n`` characters on ``threads`` cores: two pieces a core
    (balance), no piece under ``PARALLEL_MIN // 2``."""
    return max(PARALLEL_MIN // 2, -(-n // (2 * threads)))


Part = tuple[str, int, int]  # (text, start, end): a piece its core slices itself


def batch_runs(texts: list[str], threads: int) -> tuple[list[list[Part]], list[int]]:
    """A batch as work for ``threads`` cores: ``(runs, owners)``. Every text as parts in order
    (from :data:`PARALLEL_MIN` characters, cut at :func:`parallel_bounds`), the parts in runs of
    about equal length, two per core (a pool task has a fixed cost: not one per short text);
    ``owners[i]`` is the text of the ``i``-th part, counting through the runs in order."""
    runs: list[list[Part]] = [[]]
    owners: list[int] = []
    size, target = 0, sum(map(len, texts)) / (2 * threads)
    for k, text in enumerate(texts):
        bounds = parallel_bounds(text, piece_size(len(text), threads)) if len(text) >= PARALLEL_MIN else [0, len(text)]
        for a, b in itertools.pairwise(bounds):
            if size >= target:
                runs.append([])
                size = 0
            runs[-1].append((text, a, b))
            owners.append(k)
            size += b - a
    return runs, owners


def parallel_pieces(text: str, size: int) -> list[str]:
    """``text`` cut at pre-token boundaries (:data:`_SAFE_CUT`) into pieces of
    at least ``size`` characters each, which encode independently to the ids
    of the whole text (:func:`parallel_bounds`)."""
    bounds = parallel_bounds(text, size)
    return [text[a:b] for a, b in itertools.pairwise(bounds)] if len(bounds) > 2 else [text]


def parallel_bounds(text: str, size: int) -> list[int]:
    """Where :func:`parallel_pieces` cuts ``text``, with 0 and ``len(text)`` at the ends (so
    that each core may slice its own piece): at the first cut in the :data:`_WINDOW`
    characters from ``size`` past the previous cut (or from ``2 * size``, ``3 * size``...
    where there is none). No cut when none exists."""
    bounds = [0]
    size = max(size, 1)
    end = len(text)
    pos = size
    while pos <= end - size:
        # Look for a cut only near each boundary: a text without one (a long
        # run of one character) costs a few short searches, not a scan of it
        # all under the GIL; where none is near, the piece grows by ``size``.
        match = _SAFE_CUT.search(text, pos, min(pos + _WINDOW, end - size + 1))
        if match is None:
            pos += size
            continue
        bounds.append(match.start())
        pos = bounds[-1] + size
    bounds.append(end)
    return bounds


# Characters searched for a cut past each boundary.
_WINDOW = 1 << 12


class UnjoinableWindowsError(ValueError):
    """A window without a token boundary between characters (tokens longer than it)."""


# Characters of run that a window reads past a cut inside it, so that BPE's
# artificial end (a few tokens) is behind the token boundary that is kept.
OVERLAP = 2048


def encode_in_windows(
    text: str,
    encode: Callable[[str], list[int]],
    token_bytes: Callable[[int], bytes],
    piece: int = RUN_PIECE,
    overlap: int = OVERLAP,
) -> list[int] | None:
    """Ids of ``text`` encoded by ``encode`` in windows that hold no long run
    whole; ``None`` when ``text`` has no long run (encode it whole).

    At a run's start the text is cut exactly. Inside a run, a window reads
    ``overlap`` characters past each cut and keeps its ids up to the last token
    boundary at or before the cut that falls between characters; the next
    window starts there, so it inherits the phase of the merges (a run of tabs
    encoded in blocks of 16 keeps its blocks where the run's start put them).
    """
    cuts = _cuts(text, piece)
    if not cuts:
        return None
    ids: list[int] = []
    start = 0
    for cut, exact in cuts:
        if exact:
            ids += encode(text[start:cut])
            start = cut
            continue
        end = cut + overlap
        window = encode(text[start:end])
        keep, tail_chars = _boundary_before(window, token_bytes, overlap)
        ids += window[:keep]
        start = end - tail_chars
    ids += encode(text[start:])
    return ids


def _boundary_before(ids: list[int], token_bytes: Callable[[int], bytes], chars: int) -> tuple[int, int]:
    """``(k, n)``: ``ids[k:]`` spell the last ``n >= chars`` characters of the
    window, the first ``k`` ids the rest (the smallest such ``n``)."""
    n = 0
    k = len(ids)
    while k > 1:
        k -= 1
        data = token_bytes(ids[k])
        n += sum(1 for b in data if b & 0xC0 != 0x80)  # characters that start in this token
        if n >= chars and data[0] & 0xC0 != 0x80:
            return k, n
    raise UnjoinableWindowsError("no token boundary between characters in a window")
