"""The streaming JSON scanner against json.loads, the Python-literal converter against ast.literal_eval."""

from __future__ import annotations

import ast
import itertools
import json
import math
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from toklane.parsing import jsonscan
from toklane.parsing.jsonscan import JsonScanner, is_json
from toklane.parsing.pyliteral import PyValue, python_literal_to_json

TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)
NOISE = st.sampled_from(list('{}[]",:\\ \n0-1.eE+tfnulx\x01\u2028🚀'))


def reference(text: str) -> bool:
    def no_constants(name: str) -> object:
        raise ValueError(name)

    try:
        json.loads(text, parse_constant=no_constants)
    except ValueError:
        return False
    return True


def scan_in_chunks(text: str, cuts: list[int]) -> tuple[bool, int]:
    """Whether the scanner accepts ``text``, and where it stopped (an error or the value's end)."""
    scanner = JsonScanner()
    bounds = sorted({0, len(text), *(c for c in cuts if c <= len(text))})
    stop = len(text)
    for a, b in itertools.pairwise(bounds):
        j = scanner.scan(text[a:b])
        if scanner.done or scanner.failed:
            stop = a + j
            break
    done = scanner.close()
    return done and not text[stop:].strip(" \t\n\r"), stop if scanner.failed else -1


@settings(max_examples=examples(300), deadline=None)
@given(
    value=JSON,
    style=st.sampled_from([{}, {"indent": 1}, {"separators": (",", ":")}, {"ensure_ascii": False}]),
    edits=st.lists(st.tuples(st.integers(0, 10_000), st.booleans(), NOISE), max_size=3),
    cuts=st.lists(st.integers(0, 10_000), max_size=6),
)
def test_scanner_accepts_exactly_what_json_loads_accepts(value, style, edits, cuts) -> None:
    text = json.dumps(value, **style)
    for at, delete, ch in edits:
        at %= len(text) + 1
        text = text[:at] + text[at + 1 :] if delete else text[:at] + ch + text[at:]
    whole = scan_in_chunks(text, [])
    assert whole[0] == reference(text) == is_json(text), text
    assert scan_in_chunks(text, cuts) == whole  # the same verdict and the same error position, any chunking
    assert scan_in_chunks(text, list(range(len(text)))) == whole


LONG_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=24, max_size=90)
LONG_JSON = st.recursive(
    LONG_TEXT | st.integers(), lambda inner: st.dictionaries(LONG_TEXT, inner, max_size=3), max_leaves=4
)


@settings(max_examples=examples(300), deadline=None)
@given(
    value=LONG_JSON,
    edits=st.lists(st.tuples(st.integers(0, 10_000), st.booleans(), NOISE), max_size=3),
    cuts=st.lists(st.integers(0, 10_000), max_size=4),
)
def test_long_strings_read_in_one_step_keep_verdict_and_error_position(value, edits, cuts) -> None:
    """Long string spans go through the C string scanner: the same verdict and error position as
    one character at a time (which reads them with the run pattern)."""
    text = json.dumps(value, ensure_ascii=False)
    for at, delete, ch in edits:
        at %= len(text) + 1
        text = text[:at] + text[at + 1 :] if delete else text[:at] + ch + text[at:]
    whole = scan_in_chunks(text, [])
    assert whole[0] == reference(text), text
    assert scan_in_chunks(text, cuts) == whole == scan_in_chunks(text, list(range(len(text))))


def scanner_end(text: str, i: int) -> int:
    """value_end's contract read off the scanner (one chunk): the end of a value starting at
    ``text[i]``, else -1 - where it failed (len(text) where the text ends first)."""
    scanner = JsonScanner()
    j = scanner.scan(text, i)
    if scanner.done:
        return j
    if scanner.failed:
        return -1 - j
    return len(text) if scanner.close() else -1 - len(text)


@settings(max_examples=examples(300), deadline=None)
@given(
    value=JSON,
    style=st.sampled_from([{}, {"indent": 1}, {"separators": (",", ":")}, {"ensure_ascii": False}]),
    edits=st.lists(st.tuples(st.integers(0, 10_000), st.booleans(), NOISE), max_size=3),
    # (the str kind: 1, 2 or 4 bytes a character, set by a character before the value)
    lead=st.sampled_from(["", "\xe9 ", "\u0100 ", "\U0001f680 "]),
    tail=st.sampled_from(["", " ", ",", "}", "x", "]"]),
)
def test_value_end_is_where_the_scanner_and_json_end(value, style, edits, lead, tail) -> None:
    """value_end (compiled, and json's decoder without it) at a value's first character: the end
    json's decoder finds, the verdict and the error position the scanner finds (a top-level
    number ends, as json reads it, where its longest valid prefix ends)."""
    body = json.dumps(value, **style)
    for at, delete, ch in edits:
        at %= len(body) + 1
        body = body[:at] + body[at + 1 :] if delete else body[:at] + ch + body[at:]
    text = lead + body + tail
    i = len(text) - len(text.lstrip(" \t\n\r"))
    if i == len(text):
        return
    ours = jsonscan.value_end(text, i)
    assert ours == jsonscan._value_end(text, i) if ours >= 0 else jsonscan._value_end(text, i) < 0, text
    # The compiled check stops where the scanner does (json's decoder reports its own positions);
    # the scanner reads no number past its end (it needs the character after).
    if jsonscan.NATIVE and text[i] in '"[{tfn':
        assert ours == scanner_end(text, i), text
        if text[i] == '"':
            assert jsonscan.string_end(text, i + 1) == ours, text


def test_value_end_details() -> None:
    for end in (jsonscan.value_end, jsonscan._value_end):
        assert end("[1, 2] x", 0) == 6 and end('x {"a": []}', 2) == 11
        assert end("[1,", 0) == -1 - 3 and end("[1 2]", 0) == -1 - 3
    native = jsonscan.value_end
    if not jsonscan.NATIVE:
        pytest.skip("toklane._json is not built")
    # Where the reading stopped; a top-level number's longest valid prefix; nesting past any
    # recursion limit (json's decoder refuses it: the fallback is stricter, never looser).
    assert native("[1.x]", 0) == -1 - 3 and native("1.x", 0) == 1 and native("1e+", 0) == 1
    assert native("[1e+]", 0) == -1 - 4 and native('["\\u12x"]', 0) == -1 - 6
    assert native('"\x01"', 0) == -1 - 1 and native('["a\\q"]', 0) == -1 - 4
    deep = "[" * 100_000 + "]" * 100_000
    assert native(deep, 0) == len(deep) and native(deep[:-1], 0) == -1 - len(deep) + 1
    assert jsonscan._value_end(deep, 0) < 0
    assert native("9" * 5000, 0) == 5000 and jsonscan._value_end("9" * 5000, 0) < 0
    assert jsonscan.string_end('ab\\"c" x', 0) == 6 and jsonscan.string_end("ab", 0) == -1 - 2
    with pytest.raises(TypeError):
        native(b"[]", 0)
    with pytest.raises(IndexError):
        native("[]", 3)


def test_scanner_depth_and_literals() -> None:
    deep = "[" * 200_000 + "]" * 200_000
    assert is_json(deep) and not is_json(deep[:-1])
    for text in ("01", "1.", "-", ".5", "1e", "tru", "nul", "NaN", "Infinity", '"\\x"', '"\\u12"', "[1,]", '{"a" 1}'):
        assert not is_json(text), text
    for text in ("0", "-0.0e-0", '"\\ud800"', '"\u2028"', " [ ] ", "1E+2", '{"":{"":[]}}'):
        assert is_json(text), text


PY = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
    lambda inner: (
        st.lists(inner, max_size=3) | st.lists(inner, max_size=3).map(tuple) | st.dictionaries(TEXT, inner, max_size=3)
    ),
    max_leaves=10,
)


def as_json(value: object) -> object:
    if isinstance(value, (list, tuple)):
        return [as_json(v) for v in value]
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    return value


@settings(max_examples=examples(300), deadline=None)
@given(value=PY, cuts=st.lists(st.integers(0, 10_000), max_size=6))
def test_python_literals_convert_to_the_same_json_value(value, cuts) -> None:
    text = repr(value)
    converted = python_literal_to_json(text)
    assert converted is not None, text
    assert json.loads(converted) == as_json(value)
    # Streamed in any chunks, the same JSON comes out.
    pv = PyValue()
    bounds = sorted({0, len(text), *(c for c in cuts if c <= len(text))})
    for a, b in itertools.pairwise(bounds):
        assert pv.feed(text[a:b]) == b - a or pv.done
    assert pv.close() and "".join(pv.out) == converted


@settings(max_examples=examples(300), deadline=None)
@given(value=PY, edits=st.lists(st.tuples(st.integers(0, 10_000), st.booleans(), NOISE), max_size=3))
def test_accepted_python_literals_agree_with_ast(value, edits) -> None:
    text = repr(value)
    for at, delete, ch in edits:
        at %= len(text) + 1
        text = text[:at] + text[at + 1 :] if delete else text[:at] + ch + text[at:]
    converted = python_literal_to_json(text)
    if converted is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escape sequences warn in ast
        # Surrounding whitespace is not part of the literal (ast reads "\n 1" as an indented statement).
        expected = as_json(ast.literal_eval(text.strip(" \t\r\n")))
    got = json.loads(converted)
    assert got == expected or (isinstance(got, float) and math.isclose(got, expected)), text


def test_python_literal_details() -> None:
    cases = {
        "'it\\'s'": '"it\'s"',
        '"""a\nb"""': '"a\\nb"',
        "'\\x41\\101\\u00e9\\N{GREEK SMALL LETTER ALPHA}'": '"AAéα"',
        "(1,)": "[1]",
        "()": "[]",
        "((1, 2),)": "[[1, 2]]",
        "{'a': (True, None), 'b': -1_000}": '{"a": [true, null], "b": -1000}',
        "0x1F": "31",
        "[1, 2,]": "[1, 2]",
    }
    for text, expected in cases.items():
        assert python_literal_to_json(text) == expected, text
    for text in ("foo", "{1: 2}", "[1 2]", "'abc", "f(x)", "1 + 2", "{'a'}", "nan", "'a\nb'", "([])", "(1)"):
        assert python_literal_to_json(text) is None, text


@settings(max_examples=examples(400))
@given(st.text(st.sampled_from(list('ab "\\/nu0fF\t\x00\x1f\x7f\u00a0\u2028é🚀')) | st.characters(), max_size=8))
def test_plain_string_run_equals_scanning_it(s: str) -> None:
    """``plain`` (a C-speed check, then the pattern) is true exactly when scanning ``s`` inside a string
    leaves the scanner inside that string with nothing pending (so passing over it is the same)."""
    sc = JsonScanner()
    sc.scan('"')
    scanned = JsonScanner()
    scanned.scan('"')
    scanned.scan(s)
    expect = bool(s) and scanned.state == sc.state and not scanned.failed
    assert sc.plain(s) == expect
