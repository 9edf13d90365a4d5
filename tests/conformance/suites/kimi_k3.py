"""Kimi K3 (``kimi_k3``): XTML channels (``<|open|>NAME<|sep|>`` ... ``<|close|>NAME<|sep|>``)."""

from ..corpus import Sample, Suite, call

THINK_END = "<|close|>think<|sep|>"
RESPONSE = "<|open|>response<|sep|>{}<|close|>response<|sep|>"
END = "<|close|>message<|sep|>"


def arg(key: str, value: str, typ: str | None = "string") -> str:
    t = f' type="{typ}"' if typ else ""
    return f'<|open|>argument key="{key}"{t}<|sep|>{value}<|close|>argument<|sep|>'


def fn(name: str, index: int, *args: str) -> str:
    return f'<|open|>call tool="{name}" index="{index}"<|sep|>' + "".join(args) + "<|close|>call<|sep|>"


def tools(*calls: str) -> str:
    return "<|open|>tools<|sep|>" + "".join(calls) + "<|close|>tools<|sep|>"


SUITES = [
    Suite(
        "kimi-k3-test",
        "kimi_k3",
        "kimi_k3",
        (
            Sample(
                "reasoning then answer",
                "Two plus two." + THINK_END + RESPONSE.format("It is 4.") + END,
                reasoning="Two plus two.",
                content="It is 4.",
            ),
            Sample(
                "instruct turn: plain answer",
                "Hello! How can I help?<|close|>response<|sep|>" + END,
                content="Hello! How can I help?",
                options={"thinking": False},
            ),
            Sample(
                "reasoning, answer, then a typed call",
                "Weather in Paris."
                + THINK_END
                + RESPONSE.format("Checking.")
                + tools(
                    fn(
                        "get_weather",
                        1,
                        arg("city", 'Paris, "FR"'),
                        arg("days", "3", "number"),
                        arg("opts", '{"metric": true, "hours": [6, 12]}', "object"),
                    )
                )
                + END,
                reasoning="Weather in Paris.",
                content="Checking.",
                calls=(call("get_weather", city='Paris, "FR"', days=3, opts={"metric": True, "hours": [6, 12]}),),
            ),
            Sample(
                "reasoning then two calls, no response channel",
                "Both files."
                + THINK_END
                + tools(fn("read", 1, arg("path", "a.py")), fn("read", 2, arg("path", "b/ü.py")))
                + END,
                reasoning="Both files.",
                calls=(call("read", path="a.py"), call("read", path="b/ü.py")),
            ),
            Sample(
                "booleans, null, array, escaped attribute",
                THINK_END
                + tools(
                    fn(
                        "f",
                        1,
                        arg("ok", "false", "boolean"),
                        arg("none", "null", "null"),
                        arg("xs", '[1, "два", 3.5]', "array"),
                        '<|open|>argument key="say &quot;hi&quot; &amp; go" type="string"<|sep|>a\\b\n'
                        "<|close|>argument<|sep|>",
                    )
                ),
                calls=(call("f", ok=False, none=None, xs=[1, "два", 3.5], **{'say "hi" & go': "a\\b\n"}),),
            ),
            Sample(
                "empty arguments",
                THINK_END + tools(fn("get_time", 1)) + END,
                calls=(call("get_time"),),
            ),
            Sample("reasoning cut off", "The user wants a sum of the fir", reasoning="The user wants a sum of the fir"),
            Sample(
                "tools channel opened inside reasoning ends it",
                "Need the weather" + tools(fn("get_weather", 1, arg("city", "Oslo"))) + END,
                reasoning="Need the weather",
                calls=(call("get_weather", city="Oslo"),),
            ),
            Sample(
                "call cut inside a value is content",
                "Go." + THINK_END + '<|open|>tools<|sep|><|open|>call tool="search" index="1"<|sep|>'
                '<|open|>argument key="q" type="string"<|sep|>kimi k',
                reasoning="Go.",
                content='<|open|>tools<|sep|><|open|>call tool="search" index="1"<|sep|>'
                '<|open|>argument key="q" type="string"<|sep|>kimi k',
            ),
            Sample(
                "missing closers recovered",
                THINK_END + '<|open|>tools<|sep|><|open|>call tool="a" index="1"<|sep|>'
                '<|open|>argument key="x" type="number"<|sep|>1'
                '<|open|>call tool="b" index="2"<|sep|><|close|>call<|sep|>',
                calls=(call("a", x=1), call("b")),
            ),
            Sample(
                "call without tool= breaks",
                THINK_END
                + '<|open|>tools<|sep|><|open|>call index="1"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
                content='<|open|>tools<|sep|><|open|>call index="1"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
            ),
            Sample(
                "untyped argument follows the schema",
                THINK_END + tools(fn("add", 1, arg("x", "2", None), arg("y", "2", None))),
                calls=(call("add", x=2, y="2"),),
                options={
                    "tools_schema": [
                        {
                            "type": "function",
                            "function": {
                                "name": "add",
                                "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}},
                            },
                        }
                    ]
                },
            ),
        ),
        source="moonshotai Kimi K3 chat template (XTML channels)",
    )
]
