"""Source comments and docstrings quote no measured timings (issue 34): a figure measured on one machine
goes stale, so a comment says why the code is written so, and the benchmarks' tables carry the numbers.

A measured timing is a number followed by ns, us, µs or ms; or by s/seconds where the number is a
decimal, a range (``0.1-0.2 s``) or follows ``~``/``about``. Configuration values the code uses
(timeouts, intervals it sets) are allowed by name below, one entry per value."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import toklane

SRC = Path(toklane.__file__).parent

_NUMBER = r"\d[\d,]*(?:\.\d+)?"
_TIMING = re.compile(
    rf"{_NUMBER}\s?(?:ns|us|µs|ms)(?![\w/])"  # any number of ns/us/µs/ms
    rf"|(?:~\s?|\babout\s){_NUMBER}\s?(?:s|sec|seconds?)(?![\w/])"  # ~2 s, about 3 seconds
    rf"|{_NUMBER}\s?[-–]\s?{_NUMBER}\s?(?:s|sec|seconds?)(?![\w/])"  # 0.1-0.2 s
    r"|\b\d+\.\d+\s?(?:s|sec|seconds?)(?![\w/])"  # 0.44 s
)

# (file under src/toklane, substring of the flagged text): genuine configuration values. Keep it short;
# each entry says why.
_ALLOWED: list[tuple[str, str]] = [
    # The GIL switch interval the service sets, and Python's default it replaces: configuration.
    ("server/app.py", "Python's default is 5 ms"),
]


def _comments(text: str) -> list[tuple[int, str]]:
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return [(tok.start[0], tok.string) for tok in tokens if tok.type == tokenize.COMMENT]


def _docstrings(text: str) -> list[tuple[int, str]]:
    """Every string that stands as a statement (module, class, function and attribute docstrings)."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            found.append((node.lineno, node.value.value))
    return found


def _timings() -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        text = path.read_text(encoding="utf-8")
        for first_line, chunk in _comments(text) + _docstrings(text):
            for offset, line in enumerate(chunk.splitlines()):
                if not _TIMING.search(line):
                    continue
                if any(rel == file and part in line for file, part in _ALLOWED):
                    continue
                found.append(f"{rel}:{first_line + offset}: {line.strip()}")
    return found


def test_no_measured_timing_in_comments_or_docstrings():
    found = _timings()
    assert not found, "measured timings in source comments (say why, not how long):\n" + "\n".join(found)


def test_the_pattern_flags_timings_and_not_limits():
    for timing in ("~0.35 s of base64", "430 vs 67 ms", "~0.15 us a call", "0.10-0.17 s at 1 ms", "~3 ns a token"):
        assert _TIMING.search(timing), timing
    for other in ("a 30 s timeout", "64 MB", "{2,3}s", "utf-8 bytes", "3 tokens", "1 << 20 items"):
        assert not _TIMING.search(other), other


def test_every_allowed_entry_still_matches():
    """An entry whose text is gone is dropped, so the list stays the short one it claims to be."""
    stale = []
    for file, part in _ALLOWED:
        text = (SRC / file).read_text(encoding="utf-8")
        if part not in text:
            stale.append((file, part))
    assert not stale
