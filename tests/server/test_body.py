"""Request bodies decoded a piece at a time (``toklane.server.body``): the same values as
``json.loads``, the same refusals, and the GIL handed over between pieces (issue 30, items 9-10)."""

from __future__ import annotations

import json
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from toklane.server import body
from toklane.server.body import MalformedBody, decode_json, render_json

NATIVE = body._members is not None
needs_native = pytest.mark.skipif(not NATIVE, reason="toklane._json is not built")

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=8) | st.dictionaries(st.text(max_size=6), children, max_size=8),
    max_leaves=60,
)
STYLES = [
    {"separators": (",", ":")},
    {},
    {"indent": 2},
    {"indent": "\t", "ensure_ascii": False},
]


@pytest.fixture
def tiny_pieces(monkeypatch):
    """Pieces of a few characters, so every document of a test is read a piece at a time."""
    monkeypatch.setattr(body, "PIECE_CHARS", 8)
    monkeypatch.setattr(body, "WHOLE_CHARS", 0)


@needs_native
@pytest.mark.usefixtures("tiny_pieces")
@settings(max_examples=examples(300), deadline=None)
@given(value=JSON, style=st.sampled_from(STYLES), lead=st.sampled_from(["", " ", "\n\t "]))
def test_pieces_build_what_json_loads_builds(value, style, lead):
    text = lead + json.dumps(value, **style) + lead
    assert decode_json(text.encode()) == json.loads(text)


@needs_native
@pytest.mark.usefixtures("tiny_pieces")
def test_duplicate_keys_keep_the_last_value_in_the_first_place():
    text = '{"a": 1, "b": [1, 2, 3, 4, 5, 6, 7, 8], "a": {"x": [9, 9, 9, 9, 9]}, "c": 3}'
    decoded = decode_json(text.encode())
    assert decoded == json.loads(text) and list(decoded) == list(json.loads(text))


MALFORMED = [
    '{"a": [1, 2, 3',  # ends inside
    '{"a": [1, 2, 3]} x',  # extra data
    '{"a": [1, 2,]}',  # trailing comma
    '{"a": [NaN, 1, 2, 3, 4, 5]}',
    '{"a": [1, Infinity, 2, 3, 4]}',
    '{"a": "\\x"}',  # bad escape
    '{"a": "' + "\x01" + '"}',  # raw control character
    '{"a" 1, "b": 2, "c": 3, "d": 4}',
    "[" * 5000 + "]" * 5000,  # nested past json's recursion limit (walked without it)
    '{"a": [' + "9" * 5000 + "]}",  # an integer past Python's digit limit
]


@pytest.mark.parametrize("text", MALFORMED)
@pytest.mark.parametrize("pieces", [False, True])
def test_malformed_json_is_refused_either_way(text, pieces, monkeypatch):
    if pieces:
        if not NATIVE:
            pytest.skip("toklane._json is not built")
        monkeypatch.setattr(body, "PIECE_CHARS", 8)
        monkeypatch.setattr(body, "WHOLE_CHARS", 0)
    with pytest.raises(MalformedBody, match="malformed JSON body"):
        decode_json(text.encode())


def test_not_utf8_names_the_byte():
    with pytest.raises(MalformedBody, match=r"not valid UTF-8 \(byte 10 is 0xe9\)"):
        decode_json('{"text": "\xe9"}'.encode("latin-1"))


@needs_native
def test_a_large_document_lets_other_threads_run(frozen_heap):
    """A 16 MB array of small numbers: json.loads holds the GIL for all of it (0.35 s here); decoded
    a piece at a time, another thread waits a few milliseconds at most."""
    text = ("[" + ",".join(["-1"] * 5_500_000) + "]").encode()
    worst, whole = _worst_wait(lambda: decode_json(text)), _worst_wait(lambda: json.loads(text))
    # measured: whole 0.35-0.39 s, in pieces 1-10 ms
    assert worst < 0.25 * whole, (worst, whole)


def _worst_wait(fn) -> float:
    """The longest this thread waited for a 1 ms sleep to end while ``fn`` ran in another thread."""
    done = threading.Event()

    def run() -> None:
        fn()
        done.set()

    worker = threading.Thread(target=run)
    worst, last = 0.0, time.perf_counter()
    worker.start()
    while not done.is_set():
        time.sleep(0.001)
        now = time.perf_counter()
        worst, last = max(worst, now - last), now
    worker.join()
    return worst


@pytest.mark.parametrize(
    "content",
    [
        {"tokens": list(range(40_000)), "count": 40_000},
        {"text": 'a\u00e9"\\\n\U0001f600' * 30_000},
        {"counts": [], "text": "", "none": None, "nested": {"a": [1, "b"]}},
        {"token_strs": ["Ġworld", "\u0000"] * 20_000},
    ],
)
def test_render_json_is_fastapis_rendering(content):
    from fastapi.responses import JSONResponse

    assert render_json(content) == JSONResponse(content).body


@needs_native
def test_members_spans_cover_the_container():
    from toklane._json import members

    text = '[1, [2, 3], "four", {"five": [5, 5, 5, 5, 5, 5, 5, 5]}, 6]'
    end, spans = members(text, 0, 10)
    assert end == len(text)
    triples = [spans[i : i + 3] for i in range(0, len(spans), 3)]
    joined = ", ".join(text[a:b] for a, _, b in triples)
    assert json.loads("[" + joined + "]") == json.loads(text)
    assert any(v == a for a, v, _ in triples)  # the big object member is a span of its own
    assert members("[1, 2", 0, 10) == (-1 - 5, [])
    with pytest.raises(ValueError):
        members(" [1]", 0, 10)
