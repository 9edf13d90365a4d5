"""toklane's formats inside vLLM and SGLang beside their own parsers: the parser alone, and what a server does.

One run, two tables, the same Qwen3.6 outputs of L tokens (after the chat template's ``<think>``:
reasoning, then the answer) for three answers: one ``write_file`` call whose content is source code
in ``hermes`` and in ``qwen3_coder`` syntax, and a plain answer (the source code as content, no
call, with tools declared). Contenders:

  toklane   ``--reasoning-parser toklane_qwen3 --tool-call-parser toklane_<tools>``
  built-in  vLLM 0.33's / SGLang 0.5.23's own ``qwen3`` reasoning parser and tool parser
            (vLLM ``hermes`` / ``qwen3_coder``; SGLang ``qwen25`` / ``qwen3_coder``)
  floor     (served table) the same stream with no parser and no tools: what the server costs anyway

**Parser alone**, per token, one token per step: vLLM's unified parser from ``ParserManager`` fed
``parse_delta(delta_text, ...)``; SGLang's ``ReasoningParser`` then ``FunctionCallParser``
``parse_stream_chunk`` as its serving code chains them; each built per request (its constructor is
part of the cost) on the tokenizer the server holds (vLLM's cached transformers tokenizer, SGLang's
loaded one), ``delta_text`` what an incremental detokenizer releases for that token.

**Served**, per token, one token per engine step: the whole streamed request through the engine's
real chat serving class -- vLLM's ``OpenAIServingChat.create_chat_completion`` with its renderer,
``InputProcessor`` and v1 ``OutputProcessor`` (``tests/integrations/vllm_harness.py``); SGLang's
``OpenAIServingChat.handle_request`` with its ``ServerArgs``, ``TemplateManager`` and detokenizer
code (``tests/integrations/sglang_harness.py``) -- the model replaced by a replay of the token ids.
Parser cost in a server = served - floor.

Every contender's result (streamed, folded as a client folds it) is checked equal to
``toklane.parse`` of the whole output before timing (whitespace at the ends aside). Interleaved
rounds, best of each; both engines on CPU on a shared machine: compare ratios within a row.

Needs vLLM and SGLang (``VLLM_TARGET_DEVICE=cpu pip install --no-deps -r benchmarks/requirements-peers.txt``).
Run: ``python benchmarks/engines.py --quick`` (L = 1K and 4K, two rounds: about 3 minutes), or without
``--quick`` for 16K too (three rounds; much longer: SGLang's own hermes detector re-parses the call
on every chunk, ~1.5 ms per token at 4K and growing with L).
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the serving harnesses live in tests/integrations

from _common import fmt_seconds, print_table, sample_text  # noqa: E402

try:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser.parser_manager import ParserManager

    from tests.integrations import serving_models
    from tests.integrations import sglang_harness as sh
    from tests.integrations import vllm_harness as vh
except ImportError as exc:
    print(
        f"engines.py: error: vLLM or SGLang does not import ({exc}): VLLM_TARGET_DEVICE=cpu pip install "
        "--no-deps -r benchmarks/requirements-peers.txt",
        file=sys.stderr,
    )
    sys.exit(2)

from parsers import coder_output, fit, hermes_output  # noqa: E402
from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest as SglRequest  # noqa: E402
from sglang.srt.entrypoints.openai.protocol import Tool as SglTool  # noqa: E402
from sglang.srt.function_call.function_call_parser import FunctionCallParser  # noqa: E402
from sglang.srt.parser.reasoning_parser import ReasoningParser  # noqa: E402

import toklane  # noqa: E402
from toklane.integrations import sglang as toklane_sglang  # noqa: E402
from toklane.integrations import vllm as toklane_vllm  # noqa: E402

TOOL = {
    "type": "function",
    "function": {
        "name": "write_file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}},
    },
}
USER = [{"role": "user", "content": "Write the file."}]


def plain_output(code: str) -> str:
    return f"The user wants the code shown.\n</think>\n\n{code}"


# (label, toklane tools format, vLLM's tools parser, SGLang's tools parser, output builder)
CASES: list[tuple[str, str, str, str, Callable[[str], str]]] = [
    ("hermes call", "hermes", "hermes", "qwen25", hermes_output),
    ("qwen3_coder call", "qwen3_coder", "qwen3_coder", "qwen3_coder", coder_output),
    ("plain answer", "hermes", "hermes", "qwen25", plain_output),
]
Result = tuple[str, str, list[tuple[str, Any]]]


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        out = fn()
        return time.perf_counter() - t0, out
    finally:
        gc.enable()


def _result(reasoning: str | None, content: str | None, calls: list[tuple[str, Any]]) -> Result:
    return ((reasoning or "").strip(), (content or "").strip(), calls)


# --------------------------------------------------------------------------- parser alone


def vllm_parser_stream(cls: type, hf: Any, steps: list[tuple[str, list[int]]], prompt: list[int]) -> Any:
    def run() -> Any:
        req = ChatCompletionRequest(model="bench", messages=USER, tools=[TOOL], tool_choice="auto")
        parser = cls(hf, req.tools)
        last = len(steps) - 1
        return [parser.parse_delta(text, ids, req, prompt, finished=k == last) for k, (text, ids) in enumerate(steps)]

    def fold(deltas: list[Any]) -> Result:
        reasoning, content, calls = [], [], {}
        for d in deltas:
            if d is None:
                continue
            reasoning.append(d.reasoning or "")
            content.append(d.content or "")
            for c in d.tool_calls:
                name, args = calls.get(c.index, ("", ""))
                if c.function:
                    name, args = name + (c.function.name or ""), args + (c.function.arguments or "")
                calls[c.index] = (name, args)
        return _result("".join(reasoning), "".join(content), [(n, json.loads(a)) for n, a in calls.values()])

    return run, fold


def sglang_parser_stream(reasoning_name: str, tools_name: str, tokenizer: Any, texts: list[str]) -> Any:
    tools = [SglTool.model_validate(TOOL)]

    def run() -> Any:
        request = SglRequest(model="bench", messages=USER, tools=tools, tool_choice="auto")
        rp = ReasoningParser(reasoning_name, True, True, request, tokenizer=tokenizer, tool_call_parser_active=True)
        fp = FunctionCallParser(tools, tools_name, tokenizer=tokenizer)
        out = []
        last = len(texts) - 1
        for k, delta in enumerate(texts):  # as _process_reasoning_stream then _process_tool_call_stream
            r, n = rp.parse_stream_chunk(delta)
            if k == last:
                end_r, end_n = rp.parse_stream_end()
                r, n = (r or "") + (end_r or ""), (n or "") + (end_n or "")
            n, calls = fp.parse_stream_chunk(n or "")
            if k == last:
                end_n, end_calls = fp.parse_stream_end()
                n, calls = (n or "") + end_n, [*calls, *end_calls]
            out.append((r, n, calls))
        return out

    def fold(pieces: list[Any]) -> Result:
        reasoning, content, calls = [], [], {}
        for r, n, items in pieces:
            reasoning.append(r or "")
            content.append(n or "")
            for item in items:
                name, args = calls.get(item.tool_index, ("", ""))
                calls[item.tool_index] = (name + (item.name or ""), args + (item.parameters or ""))
        return _result("".join(reasoning), "".join(content), [(n, json.loads(a)) for n, a in calls.values()])

    return run, fold


# --------------------------------------------------------------------------- served


def vllm_served(serving: Any, ids: list[int], tools: bool) -> Any:
    eng = vh.engine()
    body = {"model": vh.MODEL, "messages": USER, "stream": True, **({"tools": [TOOL]} if tools else {})}

    def run() -> list[str]:
        return vh.stream(serving, eng, body, ids, 1)

    def fold(frames: list[str]) -> Result:
        reply = vh.fold(frames)
        return _result(reply.reasoning, reply.content, reply.calls)

    return run, fold


def sglang_served(srv: Any, ids: list[int], tools: bool) -> Any:
    body = {"model": sh.MODEL, "messages": USER, "stream": True, **({"tools": [TOOL]} if tools else {})}

    def run() -> list[str]:
        return sh.stream(srv, body, ids, 1)

    def fold(frames: list[str]) -> Result:
        reply = sh.fold(frames)
        return _result(reply.reasoning, reply.content, reply.calls)

    return run, fold


# --------------------------------------------------------------------------- rounds and rows


def measure(contenders: dict[str, Any], expected: Result | None, rounds: int, tokens: int) -> dict[str, float]:
    """Per-token seconds of each contender: results checked first, then interleaved rounds, best of each."""
    for name, (run, fold) in contenders.items():
        got = fold(run())
        if expected is not None and name != "floor":
            assert got == expected, (name, got[2] == expected[2], got[0][:80], expected[0][:80], got[1][:80])
    best = {name: float("inf") for name in contenders}
    order = list(contenders)
    for r in range(rounds):
        for name in order if r % 2 == 0 else reversed(order):
            elapsed, _ = _timed(contenders[name][0])
            best[name] = min(best[name], elapsed)
    return {name: t / tokens for name, t in best.items()}


def ratio(a: float, b: float) -> str:
    return f"{a / b:,.1f}x" if b > 0 else "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="L = 1K and 4K, two rounds (a few minutes)")
    opts = ap.parse_args()
    lengths = (1_000, 4_000) if opts.quick else (1_000, 4_000, 16_000)
    rounds = 2 if opts.quick else 3
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    cache = ROOT / ".pytest_cache" / "d" / "toklane-serving-models"  # shared with the tests' builds
    serving_models.use_cache_dir(cache)
    toklane_vllm.register()
    toklane_sglang.register()

    tok = toklane.load_tokenizer("qwen3.6")
    code = sample_text(0.5)
    eng = vh.engine()  # vLLM: the model folder's tokenizer, behind vLLM's cached-tokenizer proxy
    hf = eng.renderer.tokenizer
    prompt = tok.encode("<|im_start|>user\nWrite the file.<|im_end|>\n<|im_start|>assistant\n<think>\n")
    vllm_floor = vh.serving_chat(eng, None, None)
    sglang_floor = sh.server(None, None)

    parser_rows: list[list[str]] = []
    served_rows: list[list[str]] = []
    for label, fmt, vllm_tools, sglang_tools, build in CASES:
        vllm_cls = {
            "toklane": ParserManager.get_parser(
                tool_parser_name=f"toklane_{fmt}", reasoning_parser_name="toklane_qwen3", enable_auto_tools=True
            ),
            "built-in": ParserManager.get_parser(
                tool_parser_name=vllm_tools, reasoning_parser_name="qwen3", enable_auto_tools=True
            ),
        }
        vllm_servings = {
            "toklane": vh.serving_chat(eng, "qwen3", fmt),
            "built-in": vh.serving_chat(eng, "qwen3", vllm_tools, prefix=""),
        }
        sglang_servers = {"toklane": sh.server("qwen3", fmt), "built-in": sh.server("qwen3", sglang_tools, prefix="")}
        sglang_tok = sglang_servers["toklane"].manager.tokenizer
        per: dict[tuple[str, str], dict[str, dict[int, float]]] = {}
        for length in lengths:
            text, ids = fit(tok, build, code, length)
            want = toklane.parse(tok, text=text, reasoning="qwen3", tools=fmt, tools_schema=[TOOL], thinking=True)
            calls = [(c.name, json.loads(c.arguments)) for c in want.tool_calls]
            expected = _result(want.reasoning, want.content, calls)
            detok = toklane.IncrementalDetokenizer(tok)
            steps = [(detok.step([i]), [i]) for i in ids]
            texts = [t for t, _ in steps]
            tokens = len(ids) + 1  # the served stream ends with the end-of-turn token
            runs = {
                ("parser", "vLLM"): (
                    {n: vllm_parser_stream(c, hf, steps, prompt) for n, c in vllm_cls.items()},
                    len(ids),
                ),
                ("parser", "SGLang"): (
                    {
                        "toklane": sglang_parser_stream("toklane_qwen3", f"toklane_{fmt}", sglang_tok, texts),
                        "built-in": sglang_parser_stream("qwen3", sglang_tools, sglang_tok, texts),
                    },
                    len(ids),
                ),
                ("served", "vLLM"): (
                    {
                        "floor": vllm_served(vllm_floor, ids, tools=False),
                        **{n: vllm_served(s, ids, tools=True) for n, s in vllm_servings.items()},
                    },
                    tokens,
                ),
                ("served", "SGLang"): (
                    {
                        "floor": sglang_served(sglang_floor, ids, tools=False),
                        **{n: sglang_served(s, ids, tools=True) for n, s in sglang_servers.items()},
                    },
                    tokens,
                ),
            }
            for key, (contenders, n_tokens) in runs.items():
                got = measure(contenders, expected, rounds, n_tokens)
                for name, seconds in got.items():
                    per.setdefault(key, {}).setdefault(name, {})[length] = seconds
            print(f"  {label}, L={length}: done", file=sys.stderr, flush=True)
        for (kind, engine), by_name in per.items():
            rows = parser_rows if kind == "parser" else served_rows
            rows.append([f"{label}, {engine}", "", *("" for _ in lengths), ""])
            for name, secs in by_name.items():
                if name == "toklane":
                    vs = ""
                elif name == "floor":
                    vs = "floor: no parser"
                else:
                    vs = " / ".join(ratio(secs[n], by_name["toklane"][n]) for n in lengths)
                    if kind == "served":
                        over = " / ".join(
                            ratio(secs[n] - by_name["floor"][n], by_name["toklane"][n] - by_name["floor"][n])
                            for n in lengths
                        )
                        vs += f" (over the floor: {over})"
                rows.append(["", name, *(fmt_seconds(secs[n]) for n in lengths), vs])
    cols = ["", "", *(f"L={n // 1000}K" for n in lengths), "built-in / toklane"]
    print_table(
        "Parser alone, per token, one token per step (built per request, on the tokenizer the server holds)",
        cols,
        parser_rows,
    )
    print_table(
        "Served: one streamed request through the engine's OpenAIServingChat, per token, one token per step "
        "(floor: the same stream without parser or tools)",
        cols,
        served_rows,
        note="Same run, results checked equal to toklane.parse first; compare ratios within a row.",
    )


if __name__ == "__main__":
    main()
