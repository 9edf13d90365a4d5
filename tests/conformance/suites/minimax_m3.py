"""MiniMax-M3: ``<mm:think>`` reasoning and namespaced XML elements for calls.

Without ``thinking_mode="enabled"`` the output starts outside reasoning (a
non-thinking reply may open with ``</mm:think>`` left from an earlier turn); with it
the template pre-fills ``<mm:think>`` (``thinking=True``). Calls, as the template
renders them, every tag after the namespace marker::

    ]<]minimax[>[<tool_call>
    ]<]minimax[>[<invoke name="NAME">
    ]<]minimax[>[<KEY>VALUE]<]minimax[>[</KEY>
    ]<]minimax[>[</invoke>
    ]<]minimax[>[</tool_call>
"""

from tests.parsing.cases import deepseek_minimax_step  # noqa: F401  (registers the minimax-m2-test tokenizer)

from ..corpus import Sample, Suite, call
from .minimax_m2 import fn

NS = "]<]minimax[>["

TOOLS_SCHEMA = [
    fn("get_weather", location="string", days="integer"),
    fn("search", query="string", limit="integer", sources="array", filters="object"),
    fn("send_message", to="string", text="string", urgent="boolean"),
    fn("get_time"),
]


def el(key: str, value: str) -> str:
    return f"{NS}<{key}>{value}{NS}</{key}>"


def invoke(name: str, *params: tuple[str, str]) -> str:
    return f'{NS}<invoke name="{name}">\n' + "".join(el(k, v) + "\n" for k, v in params) + f"{NS}</invoke>\n"


def block(*invokes: str) -> str:
    return f"{NS}<tool_call>\n" + "".join(invokes) + f"{NS}</tool_call>"


SAMPLES = (
    Sample(
        "plain answer",
        "Hello! What can I do for you?",
        content="Hello! What can I do for you?",
    ),
    Sample(
        "a leading closer from an earlier turn is dropped",
        "</mm:think>\n\nHello again.",
        content="Hello again.",
    ),
    Sample(
        "reasoning then answer",
        "<mm:think>The user asks 6 * 7. That is 42.</mm:think>\n6 × 7 = 42.",
        reasoning="The user asks 6 * 7. That is 42.",
        content="6 × 7 = 42.",
    ),
    Sample(
        "pre-filled reasoning then a call",
        "I need the forecast for Tokyo.</mm:think>\n"
        + block(invoke("get_weather", ("location", "Tokyo"), ("days", "3"))),
        reasoning="I need the forecast for Tokyo.",
        calls=(call("get_weather", location="Tokyo", days=3),),
        options={"thinking": True},
    ),
    Sample(
        "content before a call",
        "<mm:think>Look it up.</mm:think>\nLet me check.\n" + block(invoke("get_weather", ("location", "Paris"))),
        reasoning="Look it up.",
        content="Let me check.",
        calls=(call("get_weather", location="Paris"),),
    ),
    Sample(
        "several invokes",
        "<mm:think>Two cities and the time.</mm:think>\n"
        + block(
            invoke("get_weather", ("location", "Rome")),
            invoke("get_weather", ("location", "Madrid"), ("days", "2")),
            f'{NS}<invoke name="get_time">\n{NS}</invoke>\n',
        ),
        reasoning="Two cities and the time.",
        calls=(
            call("get_weather", location="Rome"),
            call("get_weather", location="Madrid", days=2),
            call("get_time"),
        ),
    ),
    Sample(
        "arrays and nested objects as elements",
        "<mm:think>Search with filters.</mm:think>\n"
        + block(
            invoke(
                "search",
                ("query", "toklane streaming"),
                ("limit", "6"),
                ("sources", f"{NS}<item>web{NS}</item>{NS}<item>news{NS}</item>"),
                ("filters", f"{NS}<lang>en{NS}</lang>{NS}<safe>true{NS}</safe>{NS}<region>null{NS}</region>"),
            )
        ),
        reasoning="Search with filters.",
        calls=(
            call(
                "search",
                query="toklane streaming",
                limit=6,
                sources=["web", "news"],
                filters={"lang": "en", "safe": True, "region": None},
            ),
        ),
    ),
    Sample(
        "unicode, quotes and a boolean",
        "<mm:think>Send it.</mm:think>\n"
        + block(
            invoke("send_message", ("to", "Zoë 李"), ("text", 'Réunion à 10h — "salle B" 🚀\\n'), ("urgent", "false"))
        ),
        reasoning="Send it.",
        calls=(call("send_message", to="Zoë 李", text='Réunion à 10h — "salle B" 🚀\\n', urgent=False),),
    ),
    Sample(
        "a closing tag written without the namespace",
        "<mm:think>Weather.</mm:think>\n"
        f'{NS}<tool_call>\n{NS}<invoke name="get_weather">\n{NS}<location>Oslo</location>\n'
        f"{NS}</invoke>\n{NS}</tool_call>",
        reasoning="Weather.",
        calls=(call("get_weather", location="Oslo"),),
    ),
    Sample(
        "truncated inside reasoning",
        "<mm:think>First, list the constraints: the budget is",
        reasoning="First, list the constraints: the budget is",
    ),
    Sample(
        "a call ends reasoning left open",
        "<mm:think>Call it now.\n" + block(invoke("get_time")),
        reasoning="Call it now.",
        calls=(call("get_time"),),
    ),
    Sample(
        "truncated inside a value: content verbatim",
        f'<mm:think>x</mm:think>\n{NS}<tool_call>\n{NS}<invoke name="get_weather">\n{NS}<location>Ber',
        reasoning="x",
        content=f'{NS}<tool_call>\n{NS}<invoke name="get_weather">\n{NS}<location>Ber',
    ),
    Sample(
        "a mismatched closing tag breaks the call",
        f'<mm:think>x</mm:think>\n{NS}<tool_call>\n{NS}<invoke name="get_weather">\n{NS}<location>Rome{NS}</city>\n'
        f"{NS}</invoke>\n{NS}</tool_call>",
        reasoning="x",
        content=f'{NS}<tool_call>\n{NS}<invoke name="get_weather">\n{NS}<location>Rome{NS}</city>\n'
        f"{NS}</invoke>\n{NS}</tool_call>",
    ),
)

SUITES = [
    Suite(
        "minimax-m2-test",
        "minimax_m3",
        "minimax_m3",
        SAMPLES,
        options={"tools_schema": TOOLS_SCHEMA},
        source="MiniMax-M3 chat template (thinking_mode, namespaced tool call rendering), MiniMax-M3 model card",
    )
]
