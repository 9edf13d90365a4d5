"""DeepSeek-V3.2 (``deepseek_v32`` tools, served with the hybrids' ``deepseek_v3`` reasoning).

The V3.2 encoding writes tool calls after the content, separated by a blank line::

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="NAME">
    <｜DSML｜parameter name="KEY" string="true">TEXT</｜DSML｜parameter>
    <｜DSML｜parameter name="KEY" string="false">JSON</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

The thinking template pre-fills ``<think>``; the non-thinking one ``</think>``. V4
(``tool_calls``), V4.1 (``｜DSML｜ `` with a space, ``calls``) and GigaChat 3.5
(``｜GCML｜``) write the same shape: :func:`dsml_samples` spells the shared corpus for
each of them.
"""

from __future__ import annotations

from ..corpus import Sample, Suite, call


class Dsml:
    """The writer of one DSML dialect: ``tag`` (``<｜DSML｜``'s inside) and the block's name."""

    def __init__(self, tag: str, block: str) -> None:
        self.tag, self.block = tag, block

    def p(self, key: str, value: str, string: bool = True) -> str:
        s = "true" if string else "false"
        return f'<{self.tag}parameter name="{key}" string="{s}">{value}</{self.tag}parameter>'

    def inv(self, name: str, *params: str) -> str:
        return f'<{self.tag}invoke name="{name}">\n' + "".join(p + "\n" for p in params) + f"</{self.tag}invoke>"

    def open(self) -> str:
        return f"<{self.tag}{self.block}>"

    def close(self) -> str:
        return f"</{self.tag}{self.block}>"

    def calls(self, *invokes: str) -> str:
        return self.open() + "\n" + "".join(i + "\n" for i in invokes) + self.close()


def dsml_samples(d: Dsml, *, think: dict, no_think: dict, strip: bool = True) -> tuple[Sample, ...]:
    """The corpus shared by the DSML dialects. ``think``: the options of a thinking request (its output
    starts inside reasoning); ``no_think``: those of a non-thinking one. ``strip``: ``string="true"``
    values lose surrounding whitespace (DeepSeek; GigaChat keeps them)."""
    weather = d.inv("get_weather", d.p("location", "Hangzhou"), d.p("days", "3", False))
    padded = "\n  Hangzhou, Zhejiang\n" if not strip else "Hangzhou, Zhejiang"
    return (
        Sample(
            "non-thinking: plain answer",
            "The capital of France is Paris.",
            content="The capital of France is Paris.",
            options=no_think,
        ),
        Sample(
            "thinking: reasoning then answer",
            "The user asks for 17 * 3. 17 * 3 = 51.</think>17 × 3 = **51**.",
            reasoning="The user asks for 17 * 3. 17 * 3 = 51.",
            content="17 × 3 = **51**.",
            options=think,
        ),
        Sample(
            "thinking: reasoning then a call",
            "I need the weather in Hangzhou for three days.</think>\n\n" + d.calls(weather),
            reasoning="I need the weather in Hangzhou for three days.",
            calls=(call("get_weather", location="Hangzhou", days=3),),
            options=think,
        ),
        Sample(
            "thinking: reasoning, text, two calls in one block",
            "Two cities: two calls.</think>I'll check both cities.\n\n"
            + d.calls(
                d.inv("get_weather", d.p("location", "Beijing")),
                d.inv("get_weather", d.p("location", "上海"), d.p("unit", "celsius")),
            ),
            reasoning="Two cities: two calls.",
            content="I'll check both cities.",
            calls=(call("get_weather", location="Beijing"), call("get_weather", location="上海", unit="celsius")),
            options=think,
        ),
        Sample(
            "non-thinking: text before and after the block",
            "Let me look it up.\n\n" + d.calls(d.inv("search", d.p("query", "DeepSeek DSML"))) + "\nOne moment.",
            content="Let me look it up.\nOne moment.",
            calls=(call("search", query="DeepSeek DSML"),),
            options=no_think,
        ),
        Sample(
            "nested, unicode, escapes, numbers, bools and null",
            d.calls(
                d.inv(
                    "create_event",
                    d.p("title", 'Zoë\'s "launch" — 発表'),
                    d.p("attendees", '[{"name": "Ana", "tags": ["a\\tb", "c\\nd"]}, {"name": "李"}]', False),
                    d.p("options", '{"remind": true, "repeat": false, "room": null, "ratio": -1.5e3}', False),
                    d.p("count", "0", False),
                ),
            ),
            calls=(
                call(
                    "create_event",
                    title='Zoë\'s "launch" — 発表',
                    attendees=[{"name": "Ana", "tags": ["a\tb", "c\nd"]}, {"name": "李"}],
                    options={"remind": True, "repeat": False, "room": None, "ratio": -1500.0},
                    count=0,
                ),
            ),
            options=no_think,
        ),
        Sample(
            "a call without parameters",
            d.calls(d.inv("get_current_time")),
            calls=(call("get_current_time"),),
            options=no_think,
        ),
        Sample(
            "a multi-line string value (whitespace around it as the model wrote it)",
            d.calls(d.inv("geocode", d.p("address", padded), d.p("code", "def f():\n    return 1", True))),
            calls=(call("geocode", address=padded.strip() if strip else padded, code="def f():\n    return 1"),),
            options=no_think,
        ),
        Sample(
            "an invoke holding a JSON object",
            d.open()
            + "\n"
            + f'<{d.tag}invoke name="search">\n{{"query": "toklane", "limit": 5}}\n</{d.tag}invoke>\n'
            + d.close(),
            calls=(call("search", query="toklane", limit=5),),
            options=no_think,
        ),
        Sample(
            "thinking cut off (no end of reasoning)",
            "The user wants a poem. Let me think about the rhyme scheme: ABAB",
            reasoning="The user wants a poem. Let me think about the rhyme scheme: ABAB",
            options=think,
        ),
        Sample(
            "block end missing at the end of the output",
            d.open() + "\n" + weather + "\n",
            calls=(call("get_weather", location="Hangzhou", days=3),),
            options=no_think,
        ),
        Sample(
            "cut off inside a parameter value: the block is content",
            "Checking.\n\n"
            + d.open()
            + "\n"
            + f'<{d.tag}invoke name="get_weather">\n'
            + f'<{d.tag}parameter name="location" string="true">Hang',
            content="Checking.\n\n"
            + d.open()
            + "\n"
            + f'<{d.tag}invoke name="get_weather">\n'
            + f'<{d.tag}parameter name="location" string="true">Hang',
            options=no_think,
        ),
        Sample(
            "second invoke cut off: the first call stands",
            d.open() + "\n" + weather + "\n" + f'<{d.tag}invoke name="get_time">\n<{d.tag}parameter name="tz" ',
            content=f'<{d.tag}invoke name="get_time">\n<{d.tag}parameter name="tz" ',
            calls=(call("get_weather", location="Hangzhou", days=3),),
            options=no_think,
        ),
        Sample(
            "a stray block end in prose is content",
            f"Done.{d.close()}",
            content=f"Done.{d.close()}",
            options=no_think,
        ),
    )


V32 = Dsml("｜DSML｜", "function_calls")
THINK = {"thinking": True}

SUITES = [
    Suite(
        "deepseek-v4",
        "deepseek_v3",
        "deepseek_v32",
        dsml_samples(V32, think=THINK, no_think={}),
        source="DeepSeek-V3.2 encoding (encoding_dsv32.py) and model card: DSML function calls",
    ),
]
