"""dots.llm (``dots`` reasoning and tools).

Calls are MiniMax-M2-style XML invokes in ``<dots_function_call>`` blocks (text markers),
typed by ``tools_schema``; a block may hold one ``{"name": ..., "arguments": {...}}``
object instead. Reasoning is not pre-filled: the model opens ``<think>``; a tool block
ends it.
"""

from __future__ import annotations

from ..corpus import Sample, Suite, call

OPEN, CLOSE = "<dots_function_call>", "</dots_function_call>"


def p(key: str, value: str) -> str:
    return f'<parameter name="{key}">{value}</parameter>'


def inv(name: str, *params: str) -> str:
    return f'<invoke name="{name}">\n' + "".join(x + "\n" for x in params) + "</invoke>"


def block(*invokes: str) -> str:
    return OPEN + "\n" + "".join(i + "\n" for i in invokes) + CLOSE


def fn(name: str, params: dict) -> dict:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": params}}}


SCHEMA = [
    fn("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}, "hourly": {"type": "boolean"}}),
    fn(
        "create_task",
        {
            "title": {"type": "string"},
            "tags": {"type": "array"},
            "meta": {"type": "object"},
            "priority": {"type": "number"},
            "done": {"type": "boolean"},
            "parent": {"type": "integer"},
        },
    ),
    fn("get_time", {"tz": {"type": "string"}}),
    fn("list_files", {}),
]
WEATHER = inv("get_weather", p("city", "Shanghai"), p("days", "3"))

SUITES = [
    Suite(
        "deepseek-v4",
        "dots",
        "dots",
        (
            Sample("plain answer", "Hello! How can I help you today?", content="Hello! How can I help you today?"),
            Sample(
                "reasoning then answer",
                "<think>\nThe user greets me; reply briefly.\n</think>\n\nHello there!",
                reasoning="The user greets me; reply briefly.",
                content="Hello there!",
            ),
            Sample(
                "reasoning then a call",
                "<think>Need the forecast for Shanghai.</think>\n" + block(WEATHER),
                reasoning="Need the forecast for Shanghai.",
                calls=(call("get_weather", city="Shanghai", days=3),),
            ),
            Sample(
                "the block ends reasoning without </think>",
                "<think>I'll call the weather tool.\n" + block(WEATHER),
                reasoning="I'll call the weather tool.",
                calls=(call("get_weather", city="Shanghai", days=3),),
            ),
            Sample(
                "text before and after, two invokes in one block",
                "Checking both cities.\n"
                + block(
                    inv("get_weather", p("city", "北京")), inv("get_weather", p("city", "Paris"), p("hourly", "true"))
                )
                + "\nResults will follow.",
                content="Checking both cities.\nResults will follow.",
                calls=(call("get_weather", city="北京"), call("get_weather", city="Paris", hourly=True)),
            ),
            Sample(
                "two blocks, the second a JSON call object",
                block(WEATHER) + "\n" + OPEN + '{"name": "get_time", "arguments": {"tz": "Asia/Shanghai"}}' + CLOSE,
                calls=(call("get_weather", city="Shanghai", days=3), call("get_time", tz="Asia/Shanghai")),
            ),
            Sample(
                "nested, unicode, escapes, numbers, bools and null",
                block(
                    inv(
                        "create_task",
                        p("title", 'Fix "quotes" & ünïcode — 修复'),
                        p("tags", '["bug", "p1", {"k": [1, 2]}]'),
                        p("meta", '{"owner": null, "path": "C:\\\\tmp\\\\a.txt", "ok": false}'),
                        p("priority", "-0.5"),
                        p("done", "false"),
                        p("parent", "null"),
                    )
                ),
                calls=(
                    call(
                        "create_task",
                        title='Fix "quotes" & ünïcode — 修复',
                        tags=["bug", "p1", {"k": [1, 2]}],
                        meta={"owner": None, "path": "C:\\tmp\\a.txt", "ok": False},
                        priority=-0.5,
                        done=False,
                        parent=None,
                    ),
                ),
            ),
            Sample(
                "a call without parameters; values lose surrounding whitespace",
                block(inv("list_files"), inv("get_time", p("tz", "\n  Europe/Berlin\n"))),
                calls=(call("list_files"), call("get_time", tz="Europe/Berlin")),
            ),
            Sample(
                "reasoning cut off",
                "<think>Let me carefully compute 12345 * 6789. First 12345 * 6000 =",
                reasoning="Let me carefully compute 12345 * 6789. First 12345 * 6000 =",
            ),
            Sample(
                "cut off inside a parameter value: the block is content",
                "<think>Weather.</think>\n" + OPEN + '\n<invoke name="get_weather">\n<parameter name="city">Shang',
                reasoning="Weather.",
                content=OPEN + '\n<invoke name="get_weather">\n<parameter name="city">Shang',
            ),
            Sample(
                "a JSON call object cut off mid-arguments: content",
                "Sure.\n" + OPEN + '{"name": "get_time", "arguments": {"tz": "Asia/',
                content="Sure.\n" + OPEN + '{"name": "get_time", "arguments": {"tz": "Asia/',
            ),
            Sample(
                "block end missing at the end of the output",
                OPEN + "\n" + WEATHER + "\n",
                calls=(call("get_weather", city="Shanghai", days=3),),
            ),
            Sample(
                "a stray block end and a stray </think> in prose are content",
                "Use </dots_function_call> to close, not </think>.",
                content="Use </dots_function_call> to close, not </think>.",
            ),
        ),
        options={"tools_schema": SCHEMA},
        source="dots.llm1 chat template (<dots_function_call> XML invokes), peers' documented dots syntax",
    ),
]
