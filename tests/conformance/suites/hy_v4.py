"""Tencent Hy4-preview (``hy_v4``): suffixed added tokens, no ``<tool_sep>``, ``<think>`` pre-filled."""

from ..corpus import Sample, Suite, call

S = ":opensource"


def kv(name: str, *pairs: tuple[str, str]) -> str:
    body = "".join(f"<arg_key{S}>{k}</arg_key{S}><arg_value{S}>{v}</arg_value{S}>" for k, v in pairs)
    return f"<tool_call{S}>{name}{body}</tool_call{S}>"


def group(*calls: str) -> str:
    return f"<tool_calls{S}>\n" + "".join(calls) + f"\n</tool_calls{S}>"


SCHEMA = [
    {
        "type": "function",
        "function": {
            "name": "book",
            "parameters": {
                "type": "object",
                "properties": {
                    "seats": {"type": "integer"},
                    "price": {"type": "number"},
                    "window": {"type": "boolean"},
                    "notes": {"type": "string"},
                },
            },
        },
    }
]

SUITES = [
    Suite(
        "hy4-test",
        "hy_v4",
        "hy_v4",
        (
            Sample(
                "reasoning then answer",
                f"A greeting.</think{S}>你好！有什么可以帮你？",
                reasoning="A greeting.",
                content="你好！有什么可以帮你？",
            ),
            Sample(
                "no_think: plain answer",
                "Hello!",
                content="Hello!",
                options={"thinking": False},
            ),
            Sample(
                "reasoning then two calls",
                f"Two cities.</think{S}>On it."
                + group(kv("get_weather", ("city", "Beijing")), kv("get_weather", ("city", "上海"))),
                reasoning="Two cities.",
                content="On it.",
                calls=(call("get_weather", city="Beijing"), call("get_weather", city="上海")),
            ),
            Sample(
                "typed scalars",
                f"Book it.</think{S}>"
                + group(kv("book", ("seats", "2"), ("price", "99.5"), ("window", "true"), ("notes", "123"))),
                reasoning="Book it.",
                calls=(call("book", seats=2, price=99.5, window=True, notes="123"),),
                options={"tools_schema": SCHEMA},
            ),
            Sample(
                "nested, unicode and escapes",
                f"</think{S}>"
                + group(kv("save", ("doc", '{"title": "Ünïcode \\"q\\"", "tags": []}'), ("path", "C:\\docs\\a.txt"))),
                calls=(call("save", doc={"title": 'Ünïcode "q"', "tags": []}, path="C:\\docs\\a.txt"),),
            ),
            Sample(
                "empty arguments",
                f"</think{S}><tool_calls{S}><tool_call{S}>now</tool_call{S}></tool_calls{S}>",
                calls=(call("now"),),
            ),
            Sample("reasoning cut off", "We need to check the dates fir", reasoning="We need to check the dates fir"),
            Sample(
                "call cut inside a value is kept",
                f"Go.</think{S}><tool_calls{S}><tool_call{S}>search<arg_key{S}>query</arg_key{S}><arg_value{S}>hunyuan",
                reasoning="Go.",
                calls=(call("search", query="hunyuan"),),
            ),
            Sample(
                "group inside reasoning ends it",
                "Look it up" + group(kv("search", ("query", "x"))),
                reasoning="Look it up",
                calls=(call("search", query="x"),),
            ),
            Sample(
                "a call outside a group is content",
                f"</think{S}>" + kv("search", ("query", "x")),
                content=kv("search", ("query", "x")),
            ),
            Sample(
                "text between calls is content",
                f"</think{S}><tool_calls{S}>{kv('a')}\nand then\n{kv('b')}</tool_calls{S}>",
                content="and then",
                calls=(call("a"), call("b")),
            ),
        ),
        source="tencent/Hy4-preview chat template (reasoning_effort high by default)",
    )
]
