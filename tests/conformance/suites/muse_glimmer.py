"""Muse Glimmer: Muse's messages and ATEM calls with Glimmer's routing.

Only ``to=self`` is reasoning; a bare ``<|message|>`` body, ``to=user`` and
``to=commentary`` are content; ``to=developer`` is dropped; any other recipient is a
tool channel (see :mod:`.muse` for the shapes).
"""

from tests.parsing.cases import muse_beam_inkling  # noqa: F401  (registers the muse-test tokenizer)

from ..corpus import Sample, Suite, call
from .muse import TOOLS_SCHEMA, atem, first, msg, tool

SAMPLES = (
    Sample(
        "a bare answer body is content",
        "<|message|>Hi there! What can I do for you?<|eot|>",
        content="Hi there! What can I do for you?",
    ),
    Sample(
        "reasoning then a bare answer",
        first("self", "Simple greeting.") + "<|start|>assistant<|message|>Hello!<|eot|>",
        reasoning="Simple greeting.",
        content="Hello!",
    ),
    Sample(
        "reasoning, an update, then a call (template layout)",
        first("self", "Look it up.")
        + "<|start|>assistant<|message|>One moment.<|eom|>"
        + tool("weather.get", ("city", "Oslo")),
        reasoning="Look it up.",
        content="One moment.",
        calls=(call("weather.get", city="Oslo"),),
    ),
    Sample(
        "parallel calls and a final answer",
        first("self", "Both cities, then summarize.")
        + tool("get_weather", ("city", "Rome"), ("days", "1"))
        + tool("get_weather", ("city", "Nice"))
        + msg("user", "Rome and Nice are both sunny.", "<|eot|>"),
        reasoning="Both cities, then summarize.",
        content="Rome and Nice are both sunny.",
        calls=(call("get_weather", city="Rome", days=1), call("get_weather", city="Nice")),
    ),
    Sample(
        "nested JSON values and unicode",
        first("self", "Book.")
        + tool(
            "book_table",
            ("restaurant", "Ресторан «Пушкин»"),
            ("party", '{"adults": 3, "names": ["Ana", "Łukasz"], "allergy": null}'),
            ("vegan", "false"),
        ),
        reasoning="Book.",
        calls=(
            call(
                "book_table",
                restaurant="Ресторан «Пушкин»",
                party={"adults": 3, "names": ["Ana", "Łukasz"], "allergy": None},
                vegan=False,
            ),
        ),
    ),
    Sample(
        "empty arguments",
        msg("get_time", '<atem:function_calls>\n<atem:invoke name="get_time">\n</atem:invoke>\n</atem:function_calls>')[
            len("<|start|>assistant") :
        ],
        calls=(call("get_time"),),
    ),
    Sample(
        "truncated inside reasoning",
        first("self", "Considering the user's constraints, the cheapest", ""),
        reasoning="Considering the user's constraints, the cheapest",
    ),
    Sample(
        "<|eom|> left out before a tool header",
        " to=self<|message|>Call it. to=get_weather<|message|>" + atem("get_weather", ("city", "Accra")) + "<|eom|>",
        reasoning="Call it.",
        calls=(call("get_weather", city="Accra"),),
    ),
    Sample(
        "truncated inside a call: the body is content",
        first("self", "Go.")
        + '<|start|>assistant to=get_weather<|message|><atem:function_calls>\n<atem:invoke name="get_weather">\n'
        '<atem:parameter name="ci',
        reasoning="Go.",
        content='<atem:function_calls>\n<atem:invoke name="get_weather">\n<atem:parameter name="ci',
    ),
    Sample(
        "a developer message is dropped",
        first("self", "Plan.") + msg("developer", "log: step 1") + msg("user", "All set.", "<|eot|>"),
        reasoning="Plan.",
        content="All set.",
    ),
    Sample(
        "a tool channel without ATEM is content",
        first("self", "Try.") + msg("get_weather", '{"city": "Paris"}'),
        reasoning="Try.",
        content='{"city": "Paris"}',
    ),
)

SUITES = [
    Suite(
        "muse-test",
        "muse_glimmer",
        "muse_glimmer",
        SAMPLES,
        options={"tools_schema": TOOLS_SCHEMA},
        source="Muse Glimmer chat template (recipients, bare content messages, ATEM calls), Muse Glimmer GGUF metadata",
    )
]
