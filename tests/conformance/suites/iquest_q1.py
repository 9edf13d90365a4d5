"""IQuest Q1 (``iquest_q1``): ``<iquest_tool_call>`` key/value calls, ``<think>`` pre-filled; all tags text."""

from ..corpus import Sample, Suite, call


def kv(name: str, *pairs: tuple[str, str]) -> str:
    body = "".join(f"<arg_key>{k}</arg_key><arg_value>{v}</arg_value>" for k, v in pairs)
    return f"<iquest_tool_call>{name}{body}</iquest_tool_call>"


SCHEMA = [
    {
        "type": "function",
        "function": {
            "name": "run_tests",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "workers": {"type": "integer"},
                    "fail_fast": {"type": "boolean"},
                },
            },
        },
    }
]

SUITES = [
    Suite(
        "o200k_base",
        "iquest_q1",
        "iquest_q1",
        (
            Sample(
                "reasoning then answer",
                "Simple recursion question.</think>Use `functools.lru_cache` to memoize it.",
                reasoning="Simple recursion question.",
                content="Use `functools.lru_cache` to memoize it.",
            ),
            Sample(
                "thinking off: plain answer",
                "Use `functools.lru_cache`.",
                content="Use `functools.lru_cache`.",
                options={"thinking": False},
            ),
            Sample(
                "reasoning then typed call",
                "Run the suite.</think>" + kv("run_tests", ("path", "tests/"), ("workers", "4"), ("fail_fast", "true")),
                reasoning="Run the suite.",
                calls=(call("run_tests", path="tests/", workers=4, fail_fast=True),),
                options={"tools_schema": SCHEMA},
            ),
            Sample(
                "content before the call",
                "Searching.</think>Let me search." + kv("search", ("query", "borrow checker")),
                reasoning="Searching.",
                content="Let me search.",
                calls=(call("search", query="borrow checker"),),
            ),
            Sample(
                "two calls",
                "Both.</think>" + kv("read", ("path", "a.rs")) + "\n" + kv("read", ("path", "b.rs")),
                reasoning="Both.",
                calls=(call("read", path="a.rs"), call("read", path="b.rs")),
            ),
            Sample(
                "nested, unicode and escapes",
                "</think>" + kv("patch", ("diff", '-a\n+"b" \\ 日本'), ("opts", '{"dry": false, "n": [1, null]}')),
                calls=(call("patch", diff='-a\n+"b" \\ 日本', opts={"dry": False, "n": [1, None]}),),
            ),
            Sample("empty arguments", "</think><iquest_tool_call>ls</iquest_tool_call>", calls=(call("ls"),)),
            Sample(
                "reasoning cut off",
                "The stack trace points at line",
                reasoning="The stack trace points at line",
            ),
            Sample(
                "call cut inside a value",
                "Go.</think><iquest_tool_call>search<arg_key>query</arg_key><arg_value>bor",
                reasoning="Go.",
                content="<iquest_tool_call>search<arg_key>query</arg_key><arg_value>bor",
            ),
            Sample(
                "plain <tool_call> is not this format",
                "</think><tool_call>search<arg_key>q</arg_key><arg_value>x</arg_value></tool_call>",
                content="<tool_call>search<arg_key>q</arg_key><arg_value>x</arg_value></tool_call>",
            ),
            Sample(
                "newline layout is read too",
                "</think><iquest_tool_call>search\n<arg_key>query</arg_key>\n<arg_value>x</arg_value>\n"
                "</iquest_tool_call>",
                calls=(call("search", query="x"),),
            ),
        ),
        source="IQuest Q1 chat template (GLM-4.7 layout with <iquest_tool_call>)",
    )
]
