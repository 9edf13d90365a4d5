"""Per-turn cost of a 64-turn agent rollout: toklane.Conversation beside re-rendering every turn.

An RL rollout worker's loop, on the Qwen3.6 vocabulary with two tools: each turn the model emits
reasoning and a tool call (~120 ids), the environment answers with a tool result (~250 tokens),
and the worker needs the next prompt's ids. Per turn, measured:

  toklane (fast path)   Conversation: add_generated(ids) (parse from ids, ids kept verbatim) +
                        add_messages([tool result]) + prompt_ids() -- the family format
  toklane (template)    the same with chat_template= Qwen3.5's real Jinja template
  re-render, toklane    what frameworks do, with toklane's own renderer: parse the output, append the
                        message, render_chat(whole conversation) + encode
  re-render, HF         the same with transformers: apply_chat_template(messages, tools=...,
                        add_generation_prompt=True, tokenize=True) on a transformers tokenizer with
                        the same vocabulary, the same Jinja template (and toklane.parse for the output)

The per-turn cost of the Conversation stays flat (O(new tokens)); re-rendering grows with the
history. The final prompt ids of every contender are checked equal first (the template is
prefix-stable on this loop: no new user turn, so no past reasoning is dropped).

Run: ``python benchmarks/rollout.py [--turns 64] [--repeat 3]`` (about a minute).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import fmt_seconds, gc_paused, machine_note, print_table

# isort: split
import toklane

ROOT = Path(__file__).resolve().parents[1]  # (tests/chat/helpers builds the transformers tokenizer)
sys.path.insert(0, str(ROOT))

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the code base",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "start": {"type": "integer"}},
                "required": ["path"],
            },
        },
    },
]
START = [
    {"role": "system", "content": "You are a careful software engineer. Use the tools to answer."},
    {"role": "user", "content": "Find where the tokenizer cache is invalidated and explain the locking."},
]


def model_output(tok: toklane.Tokenizer, turn: int) -> list[int]:
    thought = " ".join(
        f"step {turn}: look at module m{turn % 7}, check the lock order and the weak keys." for _ in range(4)
    )
    text = (
        f"{thought}\n</think>\n\n<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/m{turn}.py\n</parameter>\n"
        f"<parameter=start>\n{turn * 10}\n</parameter>\n</function>\n</tool_call><|im_end|>"
    )
    return tok.encode(text)


def tool_result(turn: int) -> str:
    lines = [f"{n:4d}  def f{n}(cache, key):  # guarded by _lock, turn {turn}" for n in range(turn, turn + 24)]
    return "\n".join(lines)


def run_conversation(tok: toklane.Tokenizer, turns: int, template: str | None) -> tuple[list[float], list[int]]:
    conv = toklane.Conversation(tok, START, tools=TOOLS, chat_template=template)
    conv.prompt_ids()
    outs = [model_output(tok, t) for t in range(turns)]
    times = []
    prompt: list[int] = []
    for t in range(turns):
        t0 = time.perf_counter()
        result = conv.add_generated(outs[t])
        conv.add_messages([{"role": "tool", "tool_call_id": result.tool_calls[0].id, "content": tool_result(t)}])
        prompt = conv.prompt_ids()
        times.append(time.perf_counter() - t0)
    return times, prompt


def run_rerender(
    tok: toklane.Tokenizer, turns: int, encode_prompt: Callable[[list[dict]], list[int]]
) -> tuple[list[float], list[int]]:
    messages = [dict(m) for m in START]
    outs = [model_output(tok, t) for t in range(turns)]
    times = []
    prompt: list[int] = []
    for t in range(turns):
        t0 = time.perf_counter()
        r = toklane.parse(tok, token_ids=outs[t], reasoning="qwen3", tools="qwen3_coder", tools_schema=TOOLS)
        call = r.tool_calls[0]
        messages.append(
            {
                "role": "assistant",
                "content": r.content or "",
                "reasoning_content": r.reasoning,
                "tool_calls": [call.to_openai()],
            }
        )
        messages.append({"role": "tool", "tool_call_id": call.id, "content": tool_result(t)})
        prompt = encode_prompt(messages)
        times.append(time.perf_counter() - t0)
    return times, prompt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from tests.chat.helpers import hf_tokenizer, template  # the transformers twin of a bundled vocabulary

    tok = toklane.load_tokenizer("qwen3.6")
    jinja = template("qwen3.5")
    hf = hf_tokenizer("qwen3.6")
    hf.chat_template = jinja

    def hf_prompt(messages: list[dict]) -> list[int]:
        for m in messages:  # transformers renders tool-call arguments given as objects (as vLLM passes them)
            for c in m.get("tool_calls", ()):
                if isinstance(c["function"]["arguments"], str):
                    c["function"]["arguments"] = json.loads(c["function"]["arguments"])
        out = hf.apply_chat_template(messages, tools=TOOLS, add_generation_prompt=True, tokenize=True)
        return list(out["input_ids"] if isinstance(out, dict) or hasattr(out, "keys") else out)

    def toklane_prompt(messages: list[dict]) -> list[int]:
        return toklane.encode_chat(messages, tok, tools=TOOLS, add_generation_prompt=True, chat_template=jinja)

    contenders: dict[str, Callable[[], tuple[list[float], list[int]]]] = {
        "toklane Conversation (fast path)": lambda: run_conversation(tok, args.turns, None),
        "toklane Conversation (template)": lambda: run_conversation(tok, args.turns, jinja),
        "re-render every turn, toklane": lambda: run_rerender(tok, args.turns, toklane_prompt),
        "re-render every turn, HF apply_chat_template": lambda: run_rerender(tok, args.turns, hf_prompt),
    }
    best: dict[str, list[float]] = {}
    finals: dict[str, list[int]] = {}
    with gc_paused():
        for _ in range(args.repeat):
            for name, fn in contenders.items():
                times, final = fn()
                finals[name] = final
                best[name] = times if name not in best else [min(a, b) for a, b in zip(best[name], times, strict=True)]
    reference = finals["re-render every turn, HF apply_chat_template"]
    for name, final in finals.items():
        if final != reference:
            raise SystemExit(f"{name}: final prompt ids differ from transformers' ({len(final)} vs {len(reference)})")

    marks = [t for t in (1, 8, 16, 32, 64) if t <= args.turns]
    ours = best["toklane Conversation (fast path)"]
    rows = []
    for name, times in best.items():
        row: list[object] = [name]
        row += [fmt_seconds(times[t - 1]) for t in marks]
        row += [fmt_seconds(sum(times)), f"{times[-1] / ours[-1]:.1f}x"]
        rows.append(row)
    print_table(
        f"{args.turns}-turn tool-calling rollout, Qwen3.6 vocabulary: one turn's cost "
        "(parse + append + next prompt ids)",
        ["contender", *(f"turn {t}" for t in marks), "all turns", f"turn {args.turns} vs fast path"],
        rows,
        note=f"final prompt: {len(reference):,} ids, equal for all; best of {args.repeat}; {machine_note()}",
    )


if __name__ == "__main__":
    main()
