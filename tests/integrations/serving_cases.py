"""Requests and model outputs shared by the vLLM and SGLang serving-layer tests."""

from __future__ import annotations

import json

QWEN = "qwen3.6"
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
TIME = {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}}
TOOLS = [WEATHER, TIME]
USER = [{"role": "user", "content": "hi"}]
STEPS = [1, 3, 16]

# Outputs of a Qwen3.6 model after its template's "<think>\n" (reasoning, then the answer).
THOUGHT = "The user wants the weather in Paris and the time.\n</think>\n\n"
CALL = '<tool_call>\n{{"name": "{}", "arguments": {}}}\n</tool_call>'
AUTO_OUTPUTS = {
    "two calls": THOUGHT + CALL.format("get_weather", '{"city": "Paris"}') + "\n" + CALL.format("get_time", "{}"),
    "no call": THOUGHT + "It is sunny in Paris.",
    "content then a call": THOUGHT + "Let me check.\n\n" + CALL.format("get_weather", '{"city": "Paris"}'),
    "undeclared tool": THOUGHT + CALL.format("get_stock", '{"ticker": "ACME"}'),
    "malformed call": THOUGHT + '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par\n</tool_call>',
    "long call": THOUGHT
    + CALL.format("get_weather", json.dumps({"city": "Paris " + " ".join(f"district {i}" for i in range(150))})),
}
BOTH_CALLS = [("get_weather", {"city": "Paris"}), ("get_time", {})]


def blank(s: str | None) -> str | None:
    """``s``, or None where it is empty or whitespace (engines differ in sending "" or nothing)."""
    return s if s and s.strip() else None
