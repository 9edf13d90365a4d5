"""MiniMax-M2 "append think": the reasoning stays in the content, ``<think>`` put back in front.

Clients that keep MiniMax's interleaved thinking in the history want the raw
``<think>...</think>`` text: the pre-filled ``<think>`` is restored in front of the
output and nothing is split off as reasoning; ``<minimax:tool_call>`` blocks are still
read as calls.
"""

from tests.parsing.cases import deepseek_minimax_step  # noqa: F401  (registers the minimax-m2-test tokenizer)

from ..corpus import Sample, Suite, call
from .minimax_m2 import TOOLS_SCHEMA, block, invoke

SAMPLES = (
    Sample(
        "reasoning then answer: all content",
        "The user greets me.\n</think>\n\nHello! How can I help?",
        content="<think>The user greets me.\n</think>\n\nHello! How can I help?",
    ),
    Sample(
        "reasoning then a call: the thinking is content",
        "Look it up.\n</think>\n\n" + block(invoke("get_weather", ("location", "Paris"))),
        content="<think>Look it up.\n</think>",
        calls=(call("get_weather", location="Paris"),),
    ),
    Sample(
        "truncated inside reasoning",
        "Let me consider the options: A, then",
        content="<think>Let me consider the options: A, then",
    ),
    Sample(
        "two calls after thinking and an intro",
        "Both cities.\n</think>\n\nChecking both.\n"
        + block(
            invoke("get_weather", ("location", "Kyiv")), invoke("get_weather", ("location", "Riga"), ("days", "2"))
        ),
        content="<think>Both cities.\n</think>\n\nChecking both.",
        calls=(call("get_weather", location="Kyiv"), call("get_weather", location="Riga", days=2)),
    ),
    Sample(
        "unicode and markdown in the answer",
        "Translate.\n</think>\n\n**Bonjour** — こんにちは — Привет 👋",
        content="<think>Translate.\n</think>\n\n**Bonjour** — こんにちは — Привет 👋",
    ),
    Sample(
        "a call block straight after the thinking, no </think>",
        "Need the time.\n" + block('<invoke name="get_time">\n</invoke>\n'),
        content="<think>Need the time.",
        calls=(call("get_time"),),
    ),
    Sample(
        "typed nested arguments",
        "Event.\n</think>\n\n"
        + block(invoke("create_event", ("title", 'Q3 "review"'), ("options", '{"repeat": {"weekly": false}}'))),
        content="<think>Event.\n</think>",
        calls=(call("create_event", title='Q3 "review"', options={"repeat": {"weekly": False}}),),
    ),
    Sample(
        "a truncated call is content verbatim",
        'Weather.\n</think>\n\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="loc',
        content='<think>Weather.\n</think>\n\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="loc',
    ),
    Sample(
        "a stray second </think> is text",
        "First pass.\n</think>\n\nDone.</think>",
        content="<think>First pass.\n</think>\n\nDone.</think>",
    ),
    Sample(
        "content after the call",
        "Go.\n</think>\n\n" + block(invoke("get_weather", ("location", "Cairo"))) + "\nWaiting for the result.",
        content="<think>Go.\n</think>\nWaiting for the result.",
        calls=(call("get_weather", location="Cairo"),),
    ),
)

SUITES = [
    Suite(
        "minimax-m2-test",
        "minimax_m2_append_think",
        "minimax_m2",
        SAMPLES,
        options={"tools_schema": TOOLS_SCHEMA},
        source="MiniMax-M2 chat template (pre-filled <think>), MiniMax-M2 interleaved-thinking guide",
    )
]
