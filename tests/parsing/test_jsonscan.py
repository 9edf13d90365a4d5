"""The streaming JSON scanner against json.loads, the Python-literal converter against ast.literal_eval."""

from __future__ import annotations

import ast
import itertools
import json
import math
import os
import warnings

from hypothesis import given, settings
from hypothesis import strategies as st

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


@settings(max_examples=int(os.environ.get("TOKLANE_EXAMPLES", "60")) * 5, deadline=None)
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


@settings(max_examples=int(os.environ.get("TOKLANE_EXAMPLES", "60")) * 5, deadline=None)
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


@settings(max_examples=int(os.environ.get("TOKLANE_EXAMPLES", "60")) * 5, deadline=None)
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


@settings(max_examples=int(os.environ.get("TOKLANE_EXAMPLES", "60")) * 5, deadline=None)
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


@settings(max_examples=400)
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
