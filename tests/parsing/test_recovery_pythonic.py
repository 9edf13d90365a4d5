"""Pythonic call recovery: lists after prose, several lists, broken calls skipped with their siblings kept.

Covers ``pythonic`` (a ``[`` anywhere in the content may open a call list), and the sibling recovery
shared with OLMo 3 and LFM2 (pythonic inside their own markers). Every output is parsed in every way
(text, ids, one character / token at a time, random chunks) and must agree.
"""

from __future__ import annotations

import statistics
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples

from .cases.pythonic_misc import LFM2, OLMO3
from .helpers import parsed, tokenizer

run = parsed
PY = {"tools": "pythonic"}
TS, TE = "<|tool_call_start|>", "<|tool_call_end|>"
FC, FE = "<function_calls>", "</function_calls>"
SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------- pythonic: lists in prose


@pytest.mark.parametrize(
    "text, content, calls",
    [
        ("Here you go: [f(a=1)]", "Here you go:", [("f", {"a": 1})]),
        ("Sure!\n\n[get_weather(city='Paris')]", "Sure!", [("get_weather", {"city": "Paris"})]),
        (
            "Let me check. [get_weather(city='Paris')] One moment.",
            "Let me check. One moment.",
            [("get_weather", {"city": "Paris"})],
        ),
        ("[f(a=1)] and then [g(b='x')] done.", "and then done.", [("f", {"a": 1}), ("g", {"b": "x"})]),
        ("First [f(a=1)], then [g(b=2), h()].", "First, then.", [("f", {"a": 1}), ("g", {"b": 2}), ("h", {})]),
        ("See [1] and then [f(a=[1, 2])]", "See [1] and then", [("f", {"a": [1, 2]})]),
        ("Calling [f(a='[x]')] now", "Calling now", [("f", {"a": "[x]"})]),
        ("Cut short: [f(a=1)", "Cut short:", [("f", {"a": 1})]),
        ("Cut short: [f(a=1", "Cut short: [f(a=1", []),
        ("<|python_start|>[f(a=1)]<|python_end|> then [g(b=2)]", "then", [("f", {"a": 1}), ("g", {"b": 2})]),
    ],
)
def test_pythonic_lists_in_prose(text: str, content: str | None, calls: list) -> None:
    assert run("llama3", text, **PY) == (None, content, calls)


PROSE = [
    "See [the docs](https://example.com/a_(b)) for details.",
    "As shown in [1], [2] and [12, 13].",
    "Pick one of [a, b] or [see above].",
    "Index with xs[0] or m[i][j] or d['k'].",
    "Nested [[1, 2], [3]] and [[link]] and [[",
    "Links: [foo(bar)](url), [x(y=z)](url) and [see (note)](url).",
    "A list [] and [ ] and [_] and [a.b] and [f (x)].",
    "Unclosed [f(x, 'y') here] and [g(a=b) there].",
    "Math: [0, 1) and (2, 3] and [x]^2.",
    "Code: `result = [process(item=x) for x in items]` ok",
]


@pytest.mark.parametrize("text", PROSE)
def test_prose_brackets_stay_content_verbatim(text: str) -> None:
    assert run("llama3", text, **PY) == (None, text, [])


@pytest.mark.parametrize("text", PROSE)
def test_prose_brackets_are_decided_while_streaming(text: str) -> None:
    """Every bracket of prose is content as soon as a character that cannot continue a call arrives."""
    tok = tokenizer("llama3")
    parser = toklane.get_parser(tok, **PY)
    content = "".join(parser.feed(text=c).content for c in text + " and more")
    assert content == text + " and more"


@pytest.mark.parametrize(
    "text, content, calls",
    [
        (
            "[f(a=1), g(b=np.array([1, 2])), h(c=2)]",
            "g(b=np.array([1, 2]))",
            [("f", {"a": 1}), ("h", {"c": 2})],
        ),
        ("[f(a=1), g(b=x), k(q=1 + 2), h(c=2)]", "g(b=x), k(q=1 + 2)", [("f", {"a": 1}), ("h", {"c": 2})]),
        ("[g(b=x), h(c=2)]", "g(b=x)", [("h", {"c": 2})]),
        ("[f(a=1), g(1, 'two'), h(c=2)]", "g(1, 'two')", [("f", {"a": 1}), ("h", {"c": 2})]),
        ("[f(a=1), g(b=b'raw'), h(c=2)]", "g(b=b'raw')", [("f", {"a": 1}), ("h", {"c": 2})]),
        ("[f(a=1), g(b=f'{x}'), h(c=2)]", "g(b=f'{x}')", [("f", {"a": 1}), ("h", {"c": 2})]),
        ("[f(a=1), g(b={1, 2}), h(c=2)]", "g(b={1, 2})", [("f", {"a": 1}), ("h", {"c": 2})]),
        ("[f(a=1), g(b=1e999), h(c=2)]", "g(b=1e999)", [("f", {"a": 1}), ("h", {"c": 2})]),
        ("[f(a=1), g(**opts), h(c=2)]", "g(**opts)", [("f", {"a": 1}), ("h", {"c": 2})]),
        # brackets and quotes inside the skipped call do not end it early
        (
            "[f(a=1), g(b=x, s=')]', t='''it's'''), h(c=2)]",
            "g(b=x, s=')]', t='''it's''')",
            [("f", {"a": 1}), ("h", {"c": 2})],
        ),
        ('[f(a=1), g(b=x, s="\\")"), h(c=2)]', 'g(b=x, s="\\")")', [("f", {"a": 1}), ("h", {"c": 2})]),
        ("[f(a=1), g(b=x)]", "g(b=x)", [("f", {"a": 1})]),  # the broken call is the last
        ("[f(a=1), g(b=x)", "g(b=x)", [("f", {"a": 1})]),  # ... and the list is cut after it
        ("[f(a=1), g(b=x", ", g(b=x", [("f", {"a": 1})]),  # cut inside it: the rest is content
        ("[f(a=1), g(b=x, h(c=2)]", ", g(b=x, h(c=2)]", [("f", {"a": 1})]),  # never closed: a wrong closer
        ("[f(a=1), g(b=x) and more", ", g(b=x) and more", [("f", {"a": 1})]),  # no list after all
        ("[g(b=x)]", "[g(b=x)]", []),  # no call in the list: all of it is content
        ("[g(b=x), k(y)]", "[g(b=x), k(y)]", []),
        ("Text [f(a=1), g(b=x)] more", "Text g(b=x) more", [("f", {"a": 1})]),
    ],
)
def test_pythonic_broken_call_is_skipped_and_siblings_kept(text: str, content: str | None, calls: list) -> None:
    assert run("llama3", text, **PY) == (None, content, calls)


def test_skipping_needs_a_call_shape_in_prose() -> None:
    """A name and "(" apart is prose in an anchored list: nothing is skipped; inside markers it is skipped."""
    text = "[see (above), f(a=1)]"
    assert run("llama3", text, **PY) == (None, text, [])
    wrapped = "<|python_start|>[g (x), f(a=1)]<|python_end|>"
    assert run("llama3", wrapped, **PY) == (None, "g (x)", [("f", {"a": 1})])


def test_skipped_call_is_held_until_decided_then_sent() -> None:
    """Streamed: the skipped text is content once a later call completes, not before."""
    tok = tokenizer("llama3")
    parser = toklane.get_parser(tok, **PY)
    d1 = parser.feed(text="[f(a=1), g(b=x), ")
    assert [c.name for c in d1.tool_calls] == ["f"] and d1.content == ""
    d2 = parser.feed(text="h(c=2)")
    assert [c.name for c in d2.tool_calls] == ["h"] and d2.content == "g(b=x)"
    d3 = parser.feed(text="]")
    d4 = parser.finish()
    assert d3.content == d4.content == "" and not d3.tool_calls and not d4.tool_calls


# --------------------------------------------------------------------------- LFM2 and OLMo 3


@pytest.mark.parametrize(
    "text, content, calls",
    [
        (f"{TS}[f(a=1), g(b=x), h(c=2)]{TE}", "g(b=x)", [("f", {"a": 1}), ("h", {"c": 2})]),
        (f"{TS}[g(b=np.zeros(3)), h(c=2)]{TE}", "g(b=np.zeros(3))", [("h", {"c": 2})]),
        (f'{TS}[f(a=1), {{"name": "g"}}, h(c=2)]{TE}', '{"name": "g"}', [("f", {"a": 1}), ("h", {"c": 2})]),
        (f"{TS}[f(a=1), g(b='{TE}' + x), h(c=2)]{TE}", f"g(b='{TE}' + x)", [("f", {"a": 1}), ("h", {"c": 2})]),
        (f"{TS}[f(a=1), g(b=x)]{TE}", "g(b=x)", [("f", {"a": 1})]),
        (f"{TS}[f(a=1), g(b=x){TE}", "g(b=x)", [("f", {"a": 1})]),  # the list's ] is missing
        (f"{TS}[f(a=1), g(b=x{TE}", f", g(b=x{TE}", [("f", {"a": 1})]),  # cut by the end marker: as before
        (f"{TS}[g(b=x)]{TE}", f"{TS}[g(b=x)]{TE}", []),
        (f"{TS}g(b=x), h(c=2){TE}", "g(b=x)", [("h", {"c": 2})]),  # no brackets
    ],
)
def test_lfm2_broken_call_is_skipped_and_siblings_kept(text: str, content: str | None, calls: list) -> None:
    assert run(LFM2, text, tools="lfm2") == (None, content, calls)


@pytest.mark.parametrize(
    "text, content, calls",
    [
        (f"{FC}f(a=1)\ng(b=x)\nh(c=2){FE}", "g(b=x)", [("f", {"a": 1}), ("h", {"c": 2})]),
        (f"{FC}g(b=datetime.now())\nh(c=2){FE}", "g(b=datetime.now())", [("h", {"c": 2})]),
        (f"{FC}f(a=1)\ng(b=x)\nk(y)\nh(c=2){FE}", "g(b=x)\nk(y)", [("f", {"a": 1}), ("h", {"c": 2})]),
        (f"{FC}f(a=1)\ng(b=x\nh(c=2){FE}", f"g(b=x\nh(c=2){FE}", [("f", {"a": 1})]),  # one ( never closed
        (f"{FC}g(b=x){FE}", f"{FC}g(b=x){FE}", []),
    ],
)
def test_olmo3_broken_call_is_skipped_and_siblings_kept(text: str, content: str | None, calls: list) -> None:
    assert run(OLMO3, text, tools="olmo3") == (None, content, calls)


# --------------------------------------------------------------------------- properties

WORDS = st.sampled_from(["Sure.", "See", "the", "list", "and", "then", "ok", "x", "é", "🚀", "42", "(x)", "a,"])
PROSE_BITS = st.sampled_from([*PROSE, "[1]", "[a, b]", "[see above]", "xs[0]", "[[", "[text](url)", "[", "]", "[]"])
NAMES = st.sampled_from(["get_weather", "f", "search", "api.lookup"])
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text("ab ')]\"\\é", max_size=6),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from(["k", "v"]), inner, max_size=2),
    max_leaves=4,
)
ARGS = st.dictionaries(st.sampled_from(["a", "city", "q", "n"]), VALUES, max_size=3)
BROKEN = st.sampled_from(["g(b=x)", "g(1)", "g(b=np.array([1, ')']))", "g(b=1 + 2)", "g(**kw)", "g(b=b'z', c=[1])"])


def _py(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_py(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_py(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _call(name: str, args: dict) -> str:
    return f"{name}({', '.join(f'{k}={_py(v)}' for k, v in args.items())})"


@st.composite
def elements(draw: st.DrawFn) -> tuple[list[str], list[tuple[str, dict]], list[str]]:
    """A call list's elements: their text, the good calls, the broken calls' text."""
    texts: list[str] = []
    good: list[tuple[str, dict]] = []
    bad: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            name, args = draw(NAMES), draw(ARGS)
            texts.append(_call(name, args))
            good.append((name, args))
        else:
            texts.append(draw(BROKEN))
            bad.append(texts[-1])
    return texts, good, bad


@SETTINGS
@given(parts=st.lists(st.one_of(WORDS, PROSE_BITS), max_size=8), sep=st.sampled_from([" ", "\n", ""]))
def test_property_prose_is_content_verbatim_for_every_chunking(parts: list[str], sep: str) -> None:
    text = sep.join(parts)
    assert run("llama3", text, **PY) == (None, text or None, [])


@SETTINGS
@given(pieces=st.lists(st.one_of(WORDS, PROSE_BITS, elements()), max_size=6))
def test_property_lists_after_prose_agree_for_every_chunking(pieces: list) -> None:
    """Call lists (some calls broken) between prose: every good call of a list that holds one is found, in
    order, and every broken call's text is content."""
    out: list[str] = []
    want: list[tuple[str, dict]] = []
    skipped: list[str] = []
    for piece in pieces:
        if isinstance(piece, tuple):
            texts, good, bad = piece
            out.append("[" + ", ".join(texts) + "]")
            want += good
            skipped += bad
        else:
            out.append(piece)
    text = " ".join(out)
    reasoning, content, calls = run("llama3", text, **PY)
    assert reasoning is None and calls == want, text
    for bad in skipped:
        assert bad in (content or ""), text


@SETTINGS
@given(elems=elements(), layout=st.sampled_from(["", "\n", " "]), before=st.sampled_from(["", "Sure. ", "On it.\n"]))
def test_property_lfm2_siblings_kept_for_every_chunking(elems: tuple, layout: str, before: str) -> None:
    texts, good, bad = elems
    text = f"{before}{TS}[{', '.join(texts)}]{TE}{layout}"
    reasoning, content, calls = run(LFM2, text, tools="lfm2")
    assert reasoning is None and calls == good
    if good:
        assert (content or "").startswith(before.strip())
        assert all(b in (content or "") for b in bad)
        least = len(before.strip()) + sum(map(len, bad))  # plus ", " between adjacent skipped calls
        assert least <= len(content or "") <= least + 2 * len(bad) + len(layout)
    else:
        assert content == text


@SETTINGS
@given(elems=elements(), think=st.booleans())
def test_property_olmo3_siblings_kept_for_every_chunking(elems: tuple, think: bool) -> None:
    texts, good, bad = elems
    head = "<think>Planning.</think>" if think else ""
    block = FC + "\n".join(texts) + FE
    reasoning, content, calls = run(OLMO3, head + block, reasoning="olmo3", tools="olmo3")
    assert reasoning == ("Planning." if think else None) and calls == good
    if good:
        assert all(b in (content or "") for b in bad)
        assert sum(map(len, bad)) <= len(content or "") <= sum(map(len, bad)) + len(bad)
    else:
        assert content == block


# --------------------------------------------------------------------------- linear time

LINEAR = [
    ("nested brackets", lambda n: "[" * n),
    ("prose brackets", lambda n: "See [1] and [a, b] and xs[0] and [text](url). " * (n // 46)),
    ("long name in prose", lambda n: "text [" + "a" * n),
    ("many broken calls", lambda n: "[f(a=1), " + "g(b=x), " * (n // 8)),
    ("broken calls in prose", lambda n: "[g(b=x)] " * (n // 9)),
    ("deep skipped call", lambda n: "[f(a=1), g(b=x, c=" + "(" * n),
    ("unclosed string in a skipped call", lambda n: "[f(a=1), g(b=x, c='" + "(]" * (n // 2)),
]


def _timed(tok: toklane.Tokenizer, text: str) -> float:
    t0 = time.perf_counter()
    toklane.parse(tok, text=text, **PY)
    parser = toklane.get_parser(tok, **PY)
    for i in range(0, len(text), 7):
        parser.feed(text=text[i : i + 7])
    parser.finish()
    return time.perf_counter() - t0


@pytest.mark.usefixtures("frozen_heap")
@pytest.mark.parametrize("build", [b for _, b in LINEAR], ids=[i for i, _ in LINEAR])
def test_adversarial_prose_is_linear(build) -> None:
    tok = tokenizer("llama3")
    small, big = build(32 * 1024), build(256 * 1024)
    t_small = statistics.median(_timed(tok, small) for _ in range(3))
    ratio = _timed(tok, big) / t_small
    assert ratio < 24, f"8x the input took {ratio:.1f}x the time"


@pytest.mark.parametrize(
    ("output", "content", "calls"),
    [
        ("Use d[key(x=1)] here.", "Use d[key(x=1)] here.", []),
        ("Call f(x)[g(a=1)] then.", "Call f(x)[g(a=1)] then.", []),
        ("See xs[0] and [f(a=1)]", "See xs[0] and", [("f", {"a": 1})]),
        ("ok.[f(a=1)]", "ok.", [("f", {"a": 1})]),
    ],
)
def test_a_bracket_glued_to_code_is_no_call_list(output: str, content: str, calls: list) -> None:
    assert parsed("llama3", output, tools="pythonic") == (None, content, calls)
