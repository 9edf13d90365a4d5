"""Muse Spark: messages with recipients, tool calls in ATEM XML.

The chat template ends the prompt with ``<|start|>assistant``; the model writes a
recipient, ``<|message|>``, the body and ``<|eom|>`` (``<|eot|>`` ends the turn)::

     to=self<|message|>REASONING<|eom|><|start|>assistant to=get_weather<|message|><atem:function_calls>
    <atem:invoke name="get_weather">
    <atem:parameter name="city">Paris</atem:parameter>
    </atem:invoke>
    </atem:function_calls><|eom|>

``to=self`` (and a bare ``<|message|>``) is reasoning, ``to=user`` / ``to=commentary``
content, ``to=developer`` dropped, any other recipient a tool channel.
"""

from tests.parsing.cases import muse_beam_inkling  # noqa: F401  (registers the muse-test tokenizer)

from ..corpus import Sample, Suite, call
from .minimax_m2 import fn

TOOLS_SCHEMA = [
    fn("get_weather", city="string", days="integer"),
    fn("book_table", restaurant="string", party="object", times="array", vegan="boolean"),
    fn("get_time"),
]


def atem(name: str, *params: tuple[str, str]) -> str:
    ps = "".join(f'<atem:parameter name="{k}">{v}</atem:parameter>\n' for k, v in params)
    return f'<atem:function_calls>\n<atem:invoke name="{name}">\n{ps}</atem:invoke>\n</atem:function_calls>'


def msg(to: str, body: str, end: str = "<|eom|>") -> str:
    return f"<|start|>assistant to={to}<|message|>{body}{end}"


def tool(name: str, *params: tuple[str, str], to: str | None = None) -> str:
    return msg(to or name, atem(name, *params))


def first(to: str, body: str, end: str = "<|eom|>") -> str:
    """The first message: its ``<|start|>assistant`` is the prompt's."""
    return f" to={to}<|message|>{body}{end}"


SAMPLES = (
    Sample(
        "plain answer",
        first("user", "Hello! How can I help you today?", "<|eot|>"),
        content="Hello! How can I help you today?",
    ),
    Sample(
        "reasoning then answer",
        first("self", "17 * 23: 17 * 20 = 340, 17 * 3 = 51, total 391.") + msg("user", "17 × 23 = **391**.", "<|eot|>"),
        reasoning="17 * 23: 17 * 20 = 340, 17 * 3 = 51, total 391.",
        content="17 × 23 = **391**.",
    ),
    Sample(
        "reasoning then a call",
        first("self", "The user wants the weather in Paris.") + tool("get_weather", ("city", "Paris"), ("days", "3")),
        reasoning="The user wants the weather in Paris.",
        calls=(call("get_weather", city="Paris", days=3),),
    ),
    Sample(
        "commentary before the call and an answer after",
        first("self", "Check the weather first.")
        + msg("commentary", "Let me look that up.")
        + tool("get_weather", ("city", "Oslo"))
        + msg("user", "It will be sunny in Oslo.", "<|eot|>"),
        reasoning="Check the weather first.",
        content="Let me look that up.\nIt will be sunny in Oslo.",
        calls=(call("get_weather", city="Oslo"),),
    ),
    Sample(
        "parallel calls are separate messages",
        first("self", "Two cities.")
        + tool("get_weather", ("city", "Rome"))
        + tool("get_weather", ("city", "Madrid"), ("days", "2")),
        reasoning="Two cities.",
        calls=(call("get_weather", city="Rome"), call("get_weather", city="Madrid", days=2)),
    ),
    Sample(
        "objects, arrays, unicode, booleans as JSON",
        first("self", "Book it.")
        + tool(
            "book_table",
            ("restaurant", "Café “L’Étoile” 東京"),
            ("party", '{"adults": 2, "kids": [{"age": 7}], "note": null}'),
            ("times", '["19:00", "19:30"]'),
            ("vegan", "true"),
        ),
        reasoning="Book it.",
        calls=(
            call(
                "book_table",
                restaurant="Café “L’Étoile” 東京",
                party={"adults": 2, "kids": [{"age": 7}], "note": None},
                times=["19:00", "19:30"],
                vegan=True,
            ),
        ),
    ),
    Sample(
        "empty arguments",
        first("self", "No arguments needed.")
        + msg(
            "get_time", '<atem:function_calls>\n<atem:invoke name="get_time">\n</atem:invoke>\n</atem:function_calls>'
        ),
        reasoning="No arguments needed.",
        calls=(call("get_time"),),
    ),
    Sample(
        "an untyped parameter is read as JSON where it is JSON",
        first("self", "Unknown tool schema.")
        + tool("lookup", ("id", "42"), ("tags", '["a", "b"]'), ("name", "Ada Lovelace")),
        reasoning="Unknown tool schema.",
        calls=(("lookup", {"id": 42, "tags": ["a", "b"], "name": "Ada Lovelace"}),),
    ),
    Sample(
        "a doubled call name is the registered name",
        first("self", "Weather.") + msg("get_weather.get_weather", atem("get_weather.get_weather", ("city", "Lima"))),
        reasoning="Weather.",
        calls=(call("get_weather", city="Lima"),),
    ),
    Sample(
        "truncated inside reasoning",
        first("self", "Let me think about the tradeoffs: latency versus", ""),
        reasoning="Let me think about the tradeoffs: latency versus",
    ),
    Sample(
        "<|eom|> left out before a tool header",
        ' to=self<|message|>Need the time. to=get_time<|message|><atem:function_calls><atem:invoke name="get_time">'
        "</atem:invoke></atem:function_calls><|eom|>",
        reasoning="Need the time.",
        calls=(call("get_time"),),
    ),
    Sample(
        "the stop token cut after the call",
        first("self", "Weather.")
        + "<|start|>assistant to=get_weather<|message|>"
        + atem("get_weather", ("city", "Kyiv")),
        reasoning="Weather.",
        calls=(call("get_weather", city="Kyiv"),),
    ),
    Sample(
        "truncated inside a call: the body is content",
        first("self", "Weather.")
        + '<|start|>assistant to=get_weather<|message|><atem:function_calls>\n<atem:invoke name="get_weather">\n'
        '<atem:parameter name="city">Ber',
        reasoning="Weather.",
        content='<atem:function_calls>\n<atem:invoke name="get_weather">\n<atem:parameter name="city">Ber',
    ),
    Sample(
        "a developer message is dropped; a bare body is reasoning",
        "<|message|>Plan: answer directly.<|eom|>"
        + msg("developer", "internal note")
        + msg("user", "Done.", "<|eot|>"),
        reasoning="Plan: answer directly.",
        content="Done.",
    ),
    Sample(
        "ATEM markup quoted in the answer stays text",
        first("user", 'Calls look like <atem:invoke name="f"></atem:invoke>.', "<|eot|>"),
        content='Calls look like <atem:invoke name="f"></atem:invoke>.',
    ),
    Sample(
        "an invoke without <atem:function_calls>, to a namespaced recipient",
        first(
            "functions.get_weather",
            '<atem:invoke name="get_weather">\n<atem:parameter name="city">Doha</atem:parameter>\n</atem:invoke>',
        ),
        calls=(call("get_weather", city="Doha"),),
    ),
    Sample(
        "framing stripped by the server: ATEM calls alone are read",
        atem("get_weather", ("city", "Quito")),
        calls=(call("get_weather", city="Quito"),),
    ),
)

SUITES = [
    Suite(
        "muse-test",
        "muse",
        "muse",
        SAMPLES,
        options={"tools_schema": TOOLS_SCHEMA},
        source="Muse Spark chat template (recipients, ATEM tool call rendering), Muse Spark model card",
    )
]
