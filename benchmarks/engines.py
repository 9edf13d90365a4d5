"""toklane's formats inside vLLM beside vLLM's own parsers, through vLLM's calling convention.

One run, one table. The same Qwen3.6 outputs of L = 1K, 4K, 16K tokens (reasoning, then one
``write_file`` call whose content is source code) are streamed through the parser that vLLM's
``ParserManager.get_parser`` composes, the way vLLM's serving layer drives it: one
``parse_delta(delta_text, delta_token_ids, request, prompt_token_ids, finished=...)`` per token,
``delta_text`` being what an incremental detokenizer releases for that token, a new parser per
stream (as vLLM builds one per request; its constructor is part of the cost). Contenders:

  toklane   ``--reasoning-parser toklane_qwen3 --tool-call-parser toklane_<tools>``
            (``toklane.integrations.vllm``: one toklane stream per request)
  vLLM      ``--reasoning-parser qwen3 --tool-call-parser <tools>`` (vLLM 0.33's own parsers)

for ``hermes`` and ``qwen3_coder`` tools. Both results are checked equal to ``toklane.parse`` of
the whole output before timing (reasoning, content and calls). The tokenizer both get is the one
vLLM's serving layer passes its parsers: the transformers tokenizer vLLM loads (built from the
bundled Qwen3.6 data; no download) behind vLLM's ``get_cached_tokenizer`` proxy, whose cached
vocabulary makes vLLM's own parser construction cheap (a plain transformers tokenizer rebuilds its
248K-entry vocabulary per request, ~230 ms: what an earlier version of this script measured).

Needs vLLM (``VLLM_TARGET_DEVICE=cpu pip install --no-deps -r benchmarks/requirements-peers.txt``).
Run: ``python benchmarks/engines.py`` (about 2 minutes).
"""

from __future__ import annotations

import gc
import json
import logging
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from _common import fmt_seconds, print_table, sample_text

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
try:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser.parser_manager import ParserManager
except ImportError:
    print(
        "engines.py: error: vLLM is not installed: VLLM_TARGET_DEVICE=cpu pip install --no-deps -r "
        "benchmarks/requirements-peers.txt",
        file=sys.stderr,
    )
    sys.exit(2)

import peers
from parsers import coder_output, fit, hermes_output

import toklane
from toklane.integrations import vllm as toklane_vllm
from toklane.tokenizer.patterns import QWEN3_5

LENGTHS = (1_000, 4_000, 16_000)
TOOLS = {
    "type": "function",
    "function": {
        "name": "write_file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}},
    },
}
CASES: list[tuple[str, Callable[[str], str]]] = [("hermes", hermes_output), ("qwen3_coder", coder_output)]


def request() -> ChatCompletionRequest:
    return ChatCompletionRequest(
        model="bench", messages=[{"role": "user", "content": "hi"}], tools=[TOOLS], tool_choice="auto"
    )


def stream(parser_cls: type, hf: Any, steps: list[tuple[str, list[int]]], prompt: list[int]) -> tuple[float, Any]:
    """Seconds for one stream through ``parse_delta`` (a new parser, as per request), and the folded result."""
    req = request()
    reasoning, content, calls = [], [], {}
    gc.disable()
    try:
        t0 = time.perf_counter()
        parser = parser_cls(hf, req.tools)
        last = len(steps) - 1
        deltas = [parser.parse_delta(text, ids, req, prompt, finished=k == last) for k, (text, ids) in enumerate(steps)]
        elapsed = time.perf_counter() - t0
    finally:
        gc.enable()
    for d in deltas:
        if d is None:
            continue
        reasoning.append(d.reasoning or "")
        content.append(d.content or "")
        for c in d.tool_calls:
            name, args = calls.get(c.index, ("", ""))
            calls[c.index] = (
                name + (c.function.name or "") if c.function else name,
                args + (c.function.arguments or "") if c.function else args,
            )
    return elapsed, ("".join(reasoning), "".join(content), [(n, json.loads(a)) for n, a in calls.values()])


def main() -> None:
    logging.getLogger("vllm").setLevel(logging.ERROR)
    toklane_vllm.register()
    tok = toklane.load_tokenizer("qwen3.6")
    from vllm.tokenizers.hf import get_cached_tokenizer

    hf = get_cached_tokenizer(peers.transformers_tokenizer(tok, QWEN3_5))  # what vLLM's serving passes
    code = sample_text(0.5)
    prompt = tok.encode("<|im_start|>user\nWrite the file.<|im_end|>\n<|im_start|>assistant\n<think>\n")
    rows: list[list[str]] = []
    for tools, build in CASES:
        contenders = {
            "toklane": ParserManager.get_parser(
                tool_parser_name=f"toklane_{tools}", reasoning_parser_name="toklane_qwen3", enable_auto_tools=True
            ),
            "vLLM": ParserManager.get_parser(
                tool_parser_name=tools, reasoning_parser_name="qwen3", enable_auto_tools=True
            ),
        }
        rows.append([f"qwen3 reasoning + {tools}, per token", "", "", "", ""])
        per_token: dict[str, dict[int, float]] = {name: {} for name in contenders}
        for length in LENGTHS:
            text, ids = fit(tok, build, code, length)
            detok = toklane.IncrementalDetokenizer(tok)
            steps = [(detok.step([i]), [i]) for i in ids]
            want = toklane.parse(tok, text=text, reasoning="qwen3", tools=tools, tools_schema=[TOOLS])
            expected = (
                want.reasoning or "",
                want.content or "",
                [(c.name, json.loads(c.arguments)) for c in want.tool_calls],
            )
            best = {name: float("inf") for name in contenders}
            for round_ in range(3):  # interleaved rounds, best of 3
                for name, cls in contenders.items() if round_ % 2 == 0 else reversed(contenders.items()):
                    elapsed, result = stream(cls, hf, steps, prompt)
                    got = (result[0].strip(), result[1].strip(), result[2])
                    if name == "toklane" or round_ == 0:
                        assert got == (expected[0].strip(), expected[1].strip(), expected[2]), (name, tools, length)
                    best[name] = min(best[name], elapsed)
            for name in contenders:
                per_token[name][length] = best[name] / len(ids)
        for name in contenders:
            ratio = per_token["vLLM"][LENGTHS[-1]] / per_token["toklane"][LENGTHS[-1]]
            vs = "" if name == "toklane" else f"{ratio:,.1f}x slower at 16K"
            rows.append([f"  {name}", *(fmt_seconds(per_token[name][n]) for n in LENGTHS), vs])
    print_table(
        "toklane formats in vLLM 0.33 beside vLLM's own parsers: parse_delta per token, one token per step "
        "(the parser's construction included: vLLM builds one per request, on its cached tokenizer)",
        ["", "L=1K", "L=4K", "L=16K", "vs toklane"],
        rows,
    )


if __name__ == "__main__":
    main()
