"""GLM-4.5 / 4.6 (``glm45``): the template's newline layout, ``<think>`` written by the model."""

from ..corpus import Sample, Suite, call


def kv(name: str, *pairs: tuple[str, str], nl: str = "\n") -> str:
    """A call as the GLM-4.5 template writes it (``nl`` between the tags)."""
    body = "".join(f"<arg_key>{k}</arg_key>{nl}<arg_value>{v}</arg_value>{nl}" for k, v in pairs)
    return f"<tool_call>{name}{nl}{body}</tool_call>"


WEATHER = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer"},
                    "metric": {"type": "boolean"},
                    "lat": {"type": "number"},
                    "note": {"type": ["string", "null"]},
                },
            },
        },
    }
]

SUITES = [
    Suite(
        "glm-test",
        "glm45",
        "glm45",
        (
            Sample("plain answer", "The capital of France is Paris.", content="The capital of France is Paris."),
            Sample(
                "reasoning then answer",
                "\n<think>A geography question; the answer is Paris.</think>\nThe capital of France is Paris.",
                reasoning="A geography question; the answer is Paris.",
                content="The capital of France is Paris.",
            ),
            Sample(
                "reasoning then typed call",
                "\n<think>The user wants a 3-day forecast.</think>\n"
                + kv("get_weather", ("city", "北京"), ("days", "3"), ("metric", "true"), ("lat", "39.9")),
                reasoning="The user wants a 3-day forecast.",
                calls=(call("get_weather", city="北京", days=3, metric=True, lat=39.9),),
                options={"tools_schema": WEATHER},
            ),
            Sample(
                "content before the call",
                "I'll look that up for you.\n" + kv("search", ("query", "rust lifetimes")),
                content="I'll look that up for you.",
                calls=(call("search", query="rust lifetimes"),),
            ),
            Sample(
                "two calls",
                "<think>Two cities.</think>\n"
                + kv("get_weather", ("city", "Paris"))
                + "\n"
                + kv("get_weather", ("city", "Lyon")),
                reasoning="Two cities.",
                calls=(call("get_weather", city="Paris"), call("get_weather", city="Lyon")),
            ),
            Sample(
                "nested, unicode and escaped values",
                kv(
                    "run",
                    ("cmd", 'echo "héllo \\n wörld" > C:\\tmp\\out.txt'),
                    ("opts", '{"env": {"LANG": "ja_JP"}, "args": ["-v", 2, null, true]}'),
                    ("emoji", "☀️🌧"),
                ),
                calls=(
                    call(
                        "run",
                        cmd='echo "héllo \\n wörld" > C:\\tmp\\out.txt',
                        opts={"env": {"LANG": "ja_JP"}, "args": ["-v", 2, None, True]},
                        emoji="☀️🌧",
                    ),
                ),
            ),
            Sample(
                "scalars without a schema stay strings, null is null",
                kv("f", ("n", "42"), ("b", "false"), ("z", "null")),
                calls=(call("f", n="42", b="false", z=None),),
            ),
            Sample(
                "null for a nullable parameter",
                kv("get_weather", ("city", "Oslo"), ("note", "null")),
                calls=(call("get_weather", city="Oslo", note=None),),
                options={"tools_schema": WEATHER},
            ),
            Sample("empty arguments", "<tool_call>get_time\n</tool_call>", calls=(call("get_time"),)),
            Sample(
                "reasoning cut off",
                "<think>Let me work through the cases one by",
                reasoning="Let me work through the cases one by",
            ),
            Sample(
                "call cut inside a value",
                "Searching.\n<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>borrow che",
                content="Searching.\n<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>borrow che",
            ),
            Sample(
                "call cut before </tool_call>",
                "<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>borrow checker</arg_value>\n",
                calls=(call("search", query="borrow checker"),),
            ),
            Sample(
                "call cut in its name",
                "Let me check.\n<tool_call>get_wea",
                content="Let me check.\n<tool_call>get_wea",
            ),
            Sample(
                "call opened inside reasoning ends it",
                "<think>I need the weather first" + kv("get_weather", ("city", "Paris")),
                reasoning="I need the weather first",
                calls=(call("get_weather", city="Paris"),),
            ),
            Sample(
                "missing </arg_value> and stray closers recovered",
                "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1\n<arg_key>b</arg_key>\n<arg_value>2</arg_value>"
                "</arg_key>\n</tool_call>",
                calls=(call("f", a="1\n", b="2"),),
            ),
            Sample(
                "JSON after <tool_call> is not this format",
                '<tool_call>{"name": "f", "arguments": {}}</tool_call>',
                content='<tool_call>{"name": "f", "arguments": {}}</tool_call>',
            ),
        ),
        source="zai-org/GLM-4.5 chat_template.jinja; GLM-4.5 model card tool-call example",
    )
]
