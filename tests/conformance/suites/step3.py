"""Step-3 (``step3`` reasoning and tools).

The template pre-fills ``<think>``: the output starts inside reasoning and ``</think>``
ends it. Calls: the four ``<｜tool_call(s)_begin/end｜>`` markers are added tokens, the
``steptml`` tags text, values typed by ``tools_schema`` (a call is one line, wrapped here)::

    <｜tool_calls_begin｜>
    <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME">
      <steptml:parameter name="KEY">VALUE</steptml:parameter>
    </steptml:invoke><｜tool_call_end｜>
    <｜tool_calls_end｜>
"""

from __future__ import annotations

from ..corpus import Sample, Suite, call

CB, CE = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"
B, E, S = "<｜tool_call_begin｜>", "<｜tool_call_end｜>", "<｜tool_sep｜>"


def p(key: str, value: str) -> str:
    return f'<steptml:parameter name="{key}">{value}</steptml:parameter>'


def c(name: str, *params: str) -> str:
    return f'{B}function{S}<steptml:invoke name="{name}">' + "".join(params) + f"</steptml:invoke>{E}"


def calls(*cs: str) -> str:
    return CB + "\n" + "".join(x + "\n" for x in cs) + CE


def fn(name: str, params: dict) -> dict:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": params}}}


SCHEMA = [
    fn("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}, "metric": {"type": "boolean"}}),
    fn(
        "send_email",
        {
            "to": {"type": "array"},
            "subject": {"type": "string"},
            "body": {"type": "string"},
            "headers": {"type": "object"},
            "priority": {"type": "number"},
            "draft": {"type": "boolean"},
            "reply_to": {"type": "string"},
        },
    ),
    fn("get_time", {}),
]
WEATHER = c("get_weather", p("city", "Tokyo"), p("days", "3"))

SUITES = [
    Suite(
        "step3-test",
        "step3",
        "step3",
        (
            Sample(
                "reasoning then answer",
                "The user asks for the capital of Australia. It's Canberra.\n</think>\nThe capital is Canberra.",
                reasoning="The user asks for the capital of Australia. It's Canberra.",
                content="The capital is Canberra.",
            ),
            Sample(
                "reasoning then a call",
                "Weather lookup for Tokyo.\n</think>\n" + calls(WEATHER),
                reasoning="Weather lookup for Tokyo.",
                calls=(call("get_weather", city="Tokyo", days=3),),
            ),
            Sample(
                "reasoning, text, two calls, text after",
                "Two cities.\n</think>\nChecking both.\n"
                + calls(c("get_weather", p("city", "Tokyo")), c("get_weather", p("city", "大阪"), p("metric", "false")))
                + "\nI'll report back.",
                reasoning="Two cities.",
                content="Checking both.\nI'll report back.",
                calls=(call("get_weather", city="Tokyo"), call("get_weather", city="大阪", metric=False)),
            ),
            Sample(
                "nested, unicode, escapes, numbers, bools and null",
                "Compose it.</think>"
                + calls(
                    c(
                        "send_email",
                        p("to", '["ana@example.com", "李@example.cn"]'),
                        p("subject", 'Re: "Q3" — résumé'),
                        p("body", "Hi,\n\tsee the path C:\\temp\\x & <b>bold</b>.\nBye"),
                        p("headers", '{"X-Tag": ["a", {"b": null}], "retry": 2}'),
                        p("priority", "1e-2"),
                        p("draft", "true"),
                        p("reply_to", "null"),
                    )
                ),
                reasoning="Compose it.",
                calls=(
                    call(
                        "send_email",
                        to=["ana@example.com", "李@example.cn"],
                        subject='Re: "Q3" — résumé',
                        body="Hi,\n\tsee the path C:\\temp\\x & <b>bold</b>.\nBye",
                        headers={"X-Tag": ["a", {"b": None}], "retry": 2},
                        priority=0.01,
                        draft=True,
                        reply_to=None,
                    ),
                ),
            ),
            Sample(
                "a call without parameters",
                "Clock.</think>" + calls(c("get_time")),
                reasoning="Clock.",
                calls=(call("get_time"),),
            ),
            Sample(
                "the template's line layout, values with surrounding whitespace",
                "Plan.\n</think>\n\n"
                + CB
                + "\n"
                + f'{B}function{S}<steptml:invoke name="get_weather">\n<steptml:parameter name="city">\n  Tokyo\n'
                + '</steptml:parameter>\n<steptml:parameter name="days">2</steptml:parameter>\n</steptml:invoke>'
                + E
                + "\n"
                + CE,
                reasoning="Plan.",
                calls=(call("get_weather", city="Tokyo", days=2),),
            ),
            Sample(
                "a call without the outer block",
                "Quick.</think>" + WEATHER,
                reasoning="Quick.",
                calls=(call("get_weather", city="Tokyo", days=3),),
            ),
            Sample(
                "a leading <think> is dropped",
                "<think>Short.</think>Fine.",
                reasoning="Short.",
                content="Fine.",
            ),
            Sample(
                "reasoning cut off",
                "Let me enumerate the primes below 100: 2, 3, 5, 7, 11,",
                reasoning="Let me enumerate the primes below 100: 2, 3, 5, 7, 11,",
            ),
            Sample(
                "invoke and parameter left open: the call end closes them",
                "Go.</think>"
                + calls(f'{B}function{S}<steptml:invoke name="get_weather"><steptml:parameter name="city">Kyoto{E}'),
                reasoning="Go.",
                calls=(call("get_weather", city="Kyoto"),),
            ),
            Sample(
                "cut off inside a value: the block is content",
                "Go.</think>Checking.\n" + CB + "\n" + f'{B}function{S}<steptml:invoke name="get_weather">'
                '<steptml:parameter name="city">Kyo',
                reasoning="Go.",
                content="Checking.\n" + CB + "\n" + f'{B}function{S}<steptml:invoke name="get_weather">'
                '<steptml:parameter name="city">Kyo',
            ),
            Sample(
                "second call cut off: the first stands",
                "Go.</think>" + CB + "\n" + WEATHER + "\n" + f'{B}function{S}<steptml:invoke name="get_ti',
                reasoning="Go.",
                content=f"{B}function{S}" + '<steptml:invoke name="get_ti',
                calls=(call("get_weather", city="Tokyo", days=3),),
            ),
            Sample(
                "a stray calls-end marker in prose is content",
                "Done.</think>All set." + CE,
                reasoning="Done.",
                content="All set." + CE,
            ),
        ),
        options={"tools_schema": SCHEMA},
        source="Step-3 chat template and model card (steptml invokes); peers' documented step3 syntax",
    ),
]
