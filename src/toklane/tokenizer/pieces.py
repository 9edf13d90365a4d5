"""Cutting pathological inputs into pieces that encoding engines can take.

The regex engines behind tiktoken (fancy-regex) and HF ``tokenizers`` (Oniguruma)
give up on very long runs of horizontal whitespace: the pre-tokenisation
alternative ``\\s+(?!\\S)`` backtracks over the whole run, and tiktoken panics
(``PanicException``, a stack overflow) from 999,999 characters on, ``tokenizers``
(a retry limit) from about 9.5 million. Runs followed by a newline (matched by
``\\s*[\\r\\n]+``) and every other character class are fine.

:func:`split_long_runs` cuts such a run, so that no engine call sees a run of
``2 * piece`` characters or more:

* at the run's start ``a``. The character before ``a`` is not whitespace, or
  it is a newline and the last one of its whitespace run (the run is not
  followed by one), so in every supported pre-tokeniser a pre-token ends at
  ``a``: no alternative of theirs takes horizontal whitespace after a
  non-whitespace character, and ``\\s*[\\r\\n]+`` ends at the last newline.
  The text before ``a`` then encodes the same alone: its last pre-token ends in
  a non-whitespace character or in a newline, where lookaheads (``(?!\\S)``)
  see the same as in the whole text. (Not cut there: a run that ends the text
  right after a newline, which cl100k's ``\\s++$`` would join to the newlines);
* every ``piece`` characters after ``a``, the last piece being ``piece`` to
  ``2 * piece - 1`` characters long, so it never ends in a sliver and the engine
  still decides how the run's end joins what follows (pre-tokenisation after a
  cut reads only what follows it: the patterns have no lookbehind).

Runs shorter than ``2 * piece`` are never cut, so ids stay those of the engine.
A longer run was one pre-token that is now BPE-encoded in aligned pieces: for
runs of one repeated character (and of any pattern whose period divides
``piece``) the ids are still those of the engine called on the whole text, where
the engine can take it at all (tested up to its limit on every bundled
tokenizer); for an aperiodic mix of whitespace kinds longer than ``2 * piece``
the merges at the cut points may differ from an unbounded BPE.
"""

from __future__ import annotations

import re

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


def split_long_runs(text: str, piece: int = RUN_PIECE) -> list[str] | None:
    """``text`` cut around its long horizontal-whitespace runs, or ``None`` if
    it has none (the caller then encodes it whole, unchanged).

    A run counts when it is at least ``2 * piece`` characters long and not
    followed by ``\\r`` or ``\\n``. ``"".join(result) == text``.
    """
    min_run = 2 * piece
    if len(text) < min_run:
        return None
    cuts: list[int] = []
    for match in _finder(min_run).finditer(text):
        start, end = match.span()
        if text[end : end + 1] in ("\r", "\n"):
            continue  # one \s*[\r\n]+ pre-token: engines take it whole
        if start and not (end == len(text) and text[start - 1] in "\r\n"):
            cuts.append(start)
        cuts.extend(range(start + piece, end - piece + 1, piece))
    if not cuts:
        return None
    bounds = [0, *cuts, len(text)]
    return [text[bounds[k] : bounds[k + 1]] for k in range(len(bounds) - 1)]
