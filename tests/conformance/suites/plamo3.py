"""PLaMo 3 (``plamo3``): multi-token ``<|plamo:...:plamo|>`` tags, JSON arguments, thinking on by default."""

import json

from ..corpus import Sample, Suite, call

END_THINK = "<|plamo:end_think:plamo|>"
BEGIN = "<|plamo:begin_tool_requests:plamo|>"
END = "<|plamo:end_tool_requests:plamo|>"
TAG = "<|plamo:tag|>"


def req(name: str, args: dict | str, header: bool = True) -> str:
    """One request as the template writes it (``args`` as JSON text when a string)."""
    text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    head = "<|plamo:constrain|>json<|plamo:msg|>" if header else ""
    return (
        f"<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>{name}<|plamo:end_tool_name:plamo|>"
        f"<|plamo:begin_tool_arguments:plamo|>{head}{text}<|plamo:end_tool_arguments:plamo|>"
        "<|plamo:end_tool_request:plamo|>"
    )


SUITES = [
    Suite(
        "plamo3-test",
        "plamo3",
        "plamo3",
        (
            Sample(
                "reasoning then answer",
                "簡単な質問です。" + END_THINK + "東京は日本の首都です。" + TAG,
                reasoning="簡単な質問です。",
                content="東京は日本の首都です。",
            ),
            Sample(
                "thinking off: plain answer",
                "Tokyo is the capital of Japan." + TAG,
                content="Tokyo is the capital of Japan.",
                options={"thinking": False},
            ),
            Sample(
                "reasoning, content, then a call",
                "The user asks for Tokyo's weather."
                + END_THINK
                + "Checking."
                + BEGIN
                + req("get_weather", {"city": "東京"})
                + END
                + TAG,
                reasoning="The user asks for Tokyo's weather.",
                content="Checking.",
                calls=(call("get_weather", city="東京"),),
            ),
            Sample(
                "two calls",
                "Two cities."
                + END_THINK
                + BEGIN
                + req("get_weather", {"city": "Osaka"})
                + req("get_weather", {"city": "Kyoto"})
                + END,
                reasoning="Two cities.",
                calls=(call("get_weather", city="Osaka"), call("get_weather", city="Kyoto")),
            ),
            Sample(
                "nested, escapes, numbers, bools, null",
                END_THINK
                + BEGIN
                + req("f", {"a": {"b": [1, 2.5, -3e2]}, "ok": True, "none": None, "s": 'say "hi"\n\\ \u00e9'})
                + END,
                calls=(call("f", a={"b": [1, 2.5, -300.0]}, ok=True, none=None, s='say "hi"\n\\ é'),),
            ),
            Sample("empty arguments", END_THINK + BEGIN + req("get_time", {}) + END, calls=(call("get_time"),)),
            Sample(
                "header and closing tags left out",
                END_THINK + BEGIN + "<|plamo:begin_tool_name:plamo|>now<|plamo:end_tool_name:plamo|>"
                '<|plamo:begin_tool_arguments:plamo|>{"tz": "JST"}',
                calls=(call("now", tz="JST"),),
            ),
            Sample("reasoning cut off", "まず、条件を整理", reasoning="まず、条件を整理"),
            Sample(
                "tool block inside reasoning ends it",
                "Need the weather" + BEGIN + req("get_weather", {"city": "Sapporo"}) + END,
                reasoning="Need the weather",
                calls=(call("get_weather", city="Sapporo"),),
            ),
            Sample(
                "call cut inside its name is content",
                "Reasoning."
                + END_THINK
                + BEGIN
                + "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>get_wea",
                reasoning="Reasoning.",
                content=BEGIN + "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>get_wea",
            ),
            Sample(
                "call cut inside its arguments is content",
                END_THINK + BEGIN + req("f", '{"a": 1, "b": "x').split("<|plamo:end_tool_arguments")[0],
                content=BEGIN + req("f", '{"a": 1, "b": "x').split("<|plamo:end_tool_arguments")[0],
            ),
            Sample(
                "arguments that are not JSON are content",
                END_THINK + BEGIN + req("f", "city=Tokyo") + END,
                content=BEGIN + req("f", "city=Tokyo") + END,
            ),
        ),
        source="pfnet/plamo-3 chat template (tool_requests blocks)",
    )
]
