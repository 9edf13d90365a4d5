"""Linear time on adversarial output: 1 MB of deep brackets, escapes, unterminated strings, marker prefixes.

Each case is parsed at 128 KB and at 1 MB (8x), whole and streamed in small chunks; the
time must grow about 8x (a quadratic parser grows 64x). The bound, 24x, is generous for
a shared machine, and never a wall-clock threshold alone.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import pytest

import toklane

from .cases import all_linear
from .helpers import tokenizer

SMALL = 128 * 1024
FACTOR = 8
BOUND = 24.0
SCHEMA = [{"type": "function", "function": {"name": "f", "parameters": {"properties": {"o": {"type": "object"}}}}}]

# (id, tokenizer, formats, builder of an output of about n characters)
CASES: list[tuple[str, str, dict, Callable[[int], str]]] = [
    (
        "hermes deep brackets",
        "qwen3.6",
        {"tools": "hermes"},
        lambda n: '<tool_call>{"name": "f", "arguments": {"a": ' + "[" * n,
    ),
    (
        "hermes escapes",
        "qwen3.6",
        {"tools": "hermes"},
        lambda n: '<tool_call>{"name": "f", "arguments": {"s": "' + "\\\\" * (n // 2),
    ),
    (
        "hermes quote escapes",
        "qwen3.6",
        {"tools": "hermes"},
        lambda n: '<tool_call>{"name": "f", "arguments": {"s": "' + '\\"' * (n // 2),
    ),
    (
        "hermes long number",
        "qwen3.6",
        {"tools": "hermes"},
        lambda n: '<tool_call>{"name": "f", "arguments": {"n": ' + "1" * n,
    ),
    (
        "hermes many calls",
        "qwen3.6",
        {"tools": "hermes"},
        lambda n: '<tool_call>{"name": "f", "arguments": {}}</tool_call>' * (n // 51),
    ),
    ("marker prefixes", "qwen3.6", {"reasoning": "qwen3", "tools": "hermes"}, lambda n: "<" * n),
    (
        "partial markers",
        "qwen3.6",
        {"reasoning": "qwen3", "tools": "qwen3_coder"},
        lambda n: "<tool_ca</thin<param" * (n // 20),
    ),
    (
        "coder value of partial tags",
        "qwen3.6",
        {"tools": "qwen3_coder"},
        lambda n: "<tool_call><function=f><parameter=x>" + "<parameter" * (n // 10),
    ),
    (
        "coder deep object value",
        "qwen3.6",
        {"tools": "qwen3_coder", "tools_schema": SCHEMA},
        lambda n: "<tool_call><function=f><parameter=o>" + "[" * n + "</parameter></function></tool_call>",
    ),
    (
        "coder deep python value",
        "qwen3.6",
        {"tools": "qwen3_coder", "tools_schema": SCHEMA},
        lambda n: "<tool_call><function=f><parameter=o>{'a': " + "(" * n + "</parameter></function></tool_call>",
    ),
    (
        "llama3 deep objects",
        "llama3",
        {"tools": "llama3_json"},
        lambda n: '{"name": "f", "parameters": ' + '{"a":' * (n // 5),
    ),
    ("llama3 unterminated string", "llama3", {"tools": "llama3_json"}, lambda n: '{"name": "' + "x" * n),
    ("pythonic deep lists", "llama3", {"tools": "pythonic"}, lambda n: "[f(a=" + "[" * n),
    ("pythonic escapes", "llama3", {"tools": "pythonic"}, lambda n: "[f(a='" + "\\x41" * (n // 4)),
    ("pythonic long name", "llama3", {"tools": "pythonic"}, lambda n: "[" + "f" * n),
    ("olmo3 split markers", "cl100k_base", {"reasoning": "olmo3"}, lambda n: "</thin" * (n // 6)),
    ("deepseek long name", "deepseek-v4", {"tools": "deepseek_v31"}, lambda n: "<｜tool▁call▁begin｜>" + "a" * n),
    (
        "deepseek fence",
        "deepseek-v4",
        {"tools": "deepseek_v3"},
        lambda n: "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n" + '{"a":[' * (n // 6),
    ),
    (
        "mistral list",
        "mistral-tekken",
        {"tools": "mistral"},
        lambda n: "[TOOL_CALLS][" + '{"name": "f", "arguments": {}}, ' * (n // 32),
    ),
    (
        "gemma deep values",
        "functiongemma",
        {"tools": "functiongemma"},
        lambda n: "<start_function_call>call:f{" + "a:[" * (n // 3),
    ),
    (
        "gemma unterminated string",
        "functiongemma",
        {"tools": "functiongemma"},
        lambda n: "<start_function_call>call:f{a:<escape>" + "x," * (n // 2),
    ),
    (
        "harmony long header",
        "o200k_harmony",
        {"reasoning": "gpt_oss", "tools": "gpt_oss"},
        lambda n: "<|channel|>" + "to=x " * (n // 5),
    ),
    (
        "harmony deep body",
        "o200k_harmony",
        {"reasoning": "gpt_oss", "tools": "gpt_oss"},
        lambda n: "<|channel|>commentary to=functions.f<|message|>" + "[" * n,
    ),
    (
        "harmony text form, boundary prefixes",
        "o200k_harmony",
        {"reasoning": "gpt_oss", "tools": "gpt_oss"},
        lambda n: "analysis" + "assistantcomm " * (n // 14),
    ),
    (
        "harmony text form, empty messages",
        "o200k_harmony",
        {"reasoning": "gpt_oss", "tools": "gpt_oss"},
        lambda n: "analysis" + "assistantanalysis" * (n // 17),
    ),
    (
        "harmony text form, call after call",
        "o200k_harmony",
        {"reasoning": "gpt_oss", "tools": "gpt_oss"},
        lambda n: 'commentary to=functions.f json{"a": 1}assistantcommentary to=functions.f{}' * (n // 74),
    ),
    (
        "harmony whitespace between messages",
        "o200k_harmony",
        {"reasoning": "gpt_oss", "tools": "gpt_oss"},
        lambda n: "<|channel|>final<|message|>x<|end|>" + " " * n,
    ),
    (
        "harmony header words between messages",
        "o200k_harmony",
        {"reasoning": "gpt_oss", "tools": "gpt_oss"},
        lambda n: "<|channel|>final<|message|>x<|end|>" + "assistant commentary " * (n // 21),
    ),
    ("whitespace", "qwen3.6", {"reasoning": "qwen3", "tools": "hermes"}, lambda n: "x</think>" + " \n" * (n // 2)),
    *all_linear(),
]


def _best(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
    return best


def _parse_and_stream(tok: toklane.Tokenizer, fmt: dict, text: str, repeat: int) -> tuple[float, float]:
    """Parse whole, plus a stream of 7-character chunks: the best times of the whole parse and of
    both together, over ``repeat`` runs."""
    whole = both = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        toklane.parse(tok, text=text, **fmt)
        t1 = time.perf_counter()
        parser = toklane.get_parser(tok, **fmt)
        for i in range(0, len(text), 7):
            parser.feed(text=text[i : i + 7])
        parser.finish()
        whole, both = min(whole, t1 - t0), min(both, time.perf_counter() - t0)
    return whole, both


# A whole parse this fast (seconds, at 1 MB) is mostly fixed cost: its ratio says nothing.
WHOLE_TIMED_FROM = 0.02


@pytest.mark.usefixtures("frozen_heap")
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_adversarial_megabyte_is_linear(case: tuple) -> None:
    """Whole and streamed together, and the whole parse alone (the stream's cost would hide a
    quadratic whole-output path: the Harmony text form's was 51x for 8x the input)."""
    _, name, fmt, build = case
    tok = tokenizer(name)
    small, big = build(SMALL), build(SMALL * FACTOR)
    assert len(big) >= 1_000_000 * 0.9
    (whole_big, both_big), (whole_small, both_small) = (
        _parse_and_stream(tok, fmt, big, 3),
        _parse_and_stream(tok, fmt, small, 5),
    )
    assert all(c.arguments.startswith("{") for c in toklane.parse(tok, text=big, **fmt).tool_calls)
    ratio = both_big / both_small
    assert ratio < BOUND, f"{FACTOR}x the input took {ratio:.1f}x the time"
    if whole_big >= WHOLE_TIMED_FROM:
        ratio = whole_big / whole_small
        assert ratio < BOUND, f"{FACTOR}x the input took {ratio:.1f}x the time to parse whole"


@pytest.mark.usefixtures("frozen_heap")
def test_adversarial_megabyte_from_token_ids_is_linear() -> None:
    tok = toklane.load_tokenizer("qwen3.6")
    fmt = {"reasoning": "qwen3", "tools": "hermes"}

    def stream_ids(ids: list[int]) -> None:
        parser = toklane.get_parser(tok, **fmt)
        for i in range(0, len(ids), 3):
            parser.feed(token_ids=ids[i : i + 3])
        parser.finish()

    text = 'x</think><tool_call>{"name": "f", "arguments": {"s": "\\u00e9' + "🚀\\\\[" * 20_000
    ids = tok.encode(text)
    assert _best(lambda: stream_ids(ids * FACTOR), 1) / _best(lambda: stream_ids(ids), 3) < BOUND


def test_per_token_cost_is_flat_along_a_long_call() -> None:
    """The cost of a step does not grow with what came before it (no re-parse, no rescan)."""
    tok = toklane.load_tokenizer("qwen3.6")
    body = "def f(x):\n    return {'k': [x, x * 2]}  # 注释 🚀\n" * 2000
    text = '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.py", "content": ' + _json(body) + "}}"
    ids = tok.encode(text)
    window = 1000
    parser = toklane.get_parser(tok, tools="hermes", stream_arguments=True)
    costs = []
    for start in range(0, len(ids) - window, window):
        t0 = time.perf_counter()
        for i in ids[start : start + window]:
            parser.feed(token_ids=[i])
        costs.append(time.perf_counter() - t0)
    assert len(costs) >= 16
    early, late = statistics.median(costs[1:5]), statistics.median(costs[-4:])
    assert late < 3 * early, f"per-token cost grew from {early / window * 1e6:.2f} to {late / window * 1e6:.2f} us"


def _json(s: str) -> str:
    import json

    return json.dumps(s)
