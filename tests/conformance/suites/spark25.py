"""Spark 2.5 (``spark25``): GLM-4.7's compact key/value calls, tags matched as text."""

from ..corpus import Sample, Suite, call


def kv(name: str, *pairs: tuple[str, str]) -> str:
    body = "".join(f"<arg_key>{k}</arg_key><arg_value>{v}</arg_value>" for k, v in pairs)
    return f"<tool_call>{name}{body}</tool_call>"


SCHEMA = [
    {
        "type": "function",
        "function": {
            "name": "add",
            "parameters": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "set_flag",
            "parameters": {
                "type": "object",
                "properties": {"on": {"type": "boolean"}, "level": {"type": "integer"}, "tag": {"type": "null"}},
            },
        },
    },
]

SUITES = [
    Suite(
        "cl100k_base",
        None,
        "spark25",
        (
            Sample("plain answer", "2 + 2 = 4.", content="2 + 2 = 4."),
            Sample(
                "content before a typed call",
                "Adding them." + kv("add", ("x", "1.5"), ("y", "-2")),
                content="Adding them.",
                calls=(call("add", x=1.5, y=-2),),
                options={"tools_schema": SCHEMA},
            ),
            Sample(
                "booleans, integers, null",
                kv("set_flag", ("on", "true"), ("level", "3"), ("tag", "null")),
                calls=(call("set_flag", on=True, level=3, tag=None),),
                options={"tools_schema": SCHEMA},
            ),
            Sample(
                "two calls",
                kv("add", ("x", "1"), ("y", "2")) + kv("add", ("x", "3"), ("y", "4")),
                calls=(call("add", x="1", y="2"), call("add", x="3", y="4")),
            ),
            Sample(
                "nested, unicode and escapes",
                kv("post", ("text", 'Say "hi" \\o/ — ¡hola! 🎉'), ("body", '{"a": {"b": [true, null, "x"]}}')),
                calls=(call("post", text='Say "hi" \\o/ — ¡hola! 🎉', body={"a": {"b": [True, None, "x"]}}),),
            ),
            Sample("empty arguments", "<tool_call>now</tool_call>", calls=(call("now"),)),
            Sample(
                "newline layout is read too",
                "<tool_call>add\n<arg_key>x</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
                calls=(call("add", x="1"),),
            ),
            Sample(
                "call cut inside a value",
                "Sure.<tool_call>add<arg_key>x</arg_key><arg_value>1",
                content="Sure.<tool_call>add<arg_key>x</arg_key><arg_value>1",
            ),
            Sample(
                "missing </arg_value> before </tool_call>",
                "<tool_call>add<arg_key>x</arg_key><arg_value>7</tool_call>",
                calls=(call("add", x="7"),),
            ),
            Sample(
                "empty key breaks the call",
                "<tool_call>add<arg_key></arg_key><arg_value>1</arg_value></tool_call>",
                content="<tool_call>add<arg_key></arg_key><arg_value>1</arg_value></tool_call>",
            ),
            Sample(
                "text after the call",
                kv("add", ("x", "1")) + " Done.",
                content="Done.",
                calls=(call("add", x="1"),),
            ),
        ),
        source="Spark 2.5 chat template (GLM-4.7 layout)",
    )
]
