"""MiniCPM5 (``minicpm5`` reasoning and tools).

Calls have no wrapper; the template writes them after the content, one per line::

    <function name="NAME"><param name="KEY">VALUE</param></function>

``<function``, ``</function>``, ``<param``, ``</param>``, ``<think>`` and ``</think>``
are added tokens. Values are XML character data: a string holding ``<``, ``&`` or a
newline is wrapped in ``<![CDATA[...]]>``, other values are printed by Jinja (Python
literals: ``True``, ``None``, ``{'a': 1}``), entities are decoded; ``tools_schema`` types
them. Reasoning ``<think>\\n...\\n</think>\\n\\n``: pre-filled (``<think>\\n``) only for
``enable_thinking=True`` (``thinking=True``), else the model opens it.
"""

from __future__ import annotations

from ..corpus import Sample, Suite, call


def p(key: str, value: str) -> str:
    return f'<param name="{key}">{value}</param>'


def f(name: str, *params: str) -> str:
    return f'<function name="{name}">' + "".join(params) + "</function>"


def fn(name: str, params: dict) -> dict:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": params}}}


SCHEMA = [
    fn("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}, "hourly": {"type": "boolean"}}),
    fn(
        "run_query",
        {
            "sql": {"type": "string"},
            "params": {"type": "object"},
            "columns": {"type": "array"},
            "limit": {"type": "integer"},
            "ratio": {"type": "number"},
            "dry_run": {"type": "boolean"},
            "cursor": {"type": "string"},
        },
    ),
    fn("get_time", {"tz": {"type": "string"}}),
    fn("list_files", {}),
]
WEATHER = f("get_weather", p("city", "Tokyo"), p("days", "3"))
THINK = {"thinking": True}

SUITES = [
    Suite(
        "minicpm5-test",
        "minicpm5",
        "minicpm5",
        (
            Sample(
                "plain answer",
                "The Great Wall is about 21,196 km long.",
                content="The Great Wall is about 21,196 km long.",
            ),
            Sample(
                "reasoning then answer (the model opens <think>)",
                "<think>\nSimple arithmetic: 6 * 7 = 42.\n</think>\n\n6 × 7 = 42.",
                reasoning="Simple arithmetic: 6 * 7 = 42.",
                content="6 × 7 = 42.",
            ),
            Sample(
                "enable_thinking: reasoning then a call",
                "Weather for Tokyo, three days.\n</think>\n\n" + WEATHER,
                reasoning="Weather for Tokyo, three days.",
                calls=(call("get_weather", city="Tokyo", days=3),),
                options=THINK,
            ),
            Sample(
                "content, then calls one per line, then text after",
                "Let me check both.\n"
                + f("get_weather", p("city", "Beijing"), p("hourly", "True"))
                + "\n"
                + f("get_time", p("tz", "Asia/Shanghai"))
                + "\nDone calling.",
                content="Let me check both.\nDone calling.",
                calls=(call("get_weather", city="Beijing", hourly=True), call("get_time", tz="Asia/Shanghai")),
            ),
            Sample(
                "CDATA strings, entities, Python literals, unicode",
                f(
                    "run_query",
                    p("sql", "<![CDATA[SELECT * FROM t\nWHERE a < 3 AND b = 'x' & c]]>"),
                    p("params", "{'name': 'Zoë', 'ids': [1, 2], 'flag': True, 'none': None}"),
                    p("columns", "['名前', \"it's\"]"),
                    p("limit", "0"),
                    p("ratio", "-2.5"),
                    p("dry_run", "False"),
                    p("cursor", "a &amp; b &lt;c&gt; &#20013;&#x6587;"),
                ),
                calls=(
                    call(
                        "run_query",
                        sql="SELECT * FROM t\nWHERE a < 3 AND b = 'x' & c",
                        params={"name": "Zoë", "ids": [1, 2], "flag": True, "none": None},
                        columns=["名前", "it's"],
                        limit=0,
                        ratio=-2.5,
                        dry_run=False,
                        cursor="a & b <c> 中文",
                    ),
                ),
            ),
            Sample(
                "calls without parameters (empty and self-closing)",
                '<function name="list_files"></function>\n<function name="get_time"/>',
                calls=(call("list_files"), call("get_time")),
            ),
            Sample(
                "non-thinking template: the empty think block is pre-filled",
                "Sure! Paris is the capital of France.",
                content="Sure! Paris is the capital of France.",
                options={"thinking": False},
            ),
            Sample(
                "reasoning cut off",
                "<think>\nThe user wants a haiku about autumn. Five syllables first:",
                reasoning="The user wants a haiku about autumn. Five syllables first:",
            ),
            Sample(
                "a missing </param> is recovered at </function>",
                f'<function name="get_weather">{p("city", "Osaka")}<param name="days">2</function>',
                calls=(call("get_weather", city="Osaka", days=2),),
            ),
            Sample(
                "cut off inside a value: the call is content",
                "Checking.\n" + '<function name="get_weather"><param name="city">Tok',
                content="Checking.\n" + '<function name="get_weather"><param name="city">Tok',
            ),
            Sample(
                "second call cut off: the first stands",
                WEATHER + "\n" + '<function name="get_time"><param name="tz">Europe/',
                content='<function name="get_time"><param name="tz">Europe/',
                calls=(call("get_weather", city="Tokyo", days=3),),
            ),
            Sample(
                "a stray </function> in prose is content",
                "Nothing to call.</function>",
                content="Nothing to call.</function>",
            ),
            Sample(
                "a CDATA section left open: the call is content",
                '<function name="run_query"><param name="sql"><![CDATA[SELECT 1\n</param></function>',
                content='<function name="run_query"><param name="sql"><![CDATA[SELECT 1\n</param></function>',
            ),
        ),
        options={"tools_schema": SCHEMA},
        source="MiniCPM5 chat template (XML calls, CDATA, Jinja-printed values) and model card",
    ),
]
