"""Beam: Harmony-framed messages; a call is a message addressed to the function, its
parameters as ``rfl`` tags.

The chat template ends the prompt with ``<|start|>assistant``::

    <|channel|>analysis<|message|>REASONING<|end|><|start|>assistant to=get_weather<|channel|>analysis \
<|constrain|>xml<|message|><rfl:parameter name="city">
    Paris
    </rfl:parameter><|call|>

``analysis`` is reasoning, ``final`` (or any other channel) content; ``to=NAME`` makes a
call whatever the channel.
"""

from ..corpus import Sample, Suite, call
from .minimax_m2 import fn

TOOLS_SCHEMA = [
    fn("get_weather", city="string", days="integer"),
    fn("create_ticket", title="string", labels="array", meta="object", urgent="boolean", estimate="number"),
    fn("run_sql", query="string"),
    fn("get_time"),
]

HEAD = "<|channel|>analysis <|constrain|>xml<|message|>"


def params(*kv: tuple[str, str]) -> str:
    return "\n".join(f'<rfl:parameter name="{k}">\n{v}\n</rfl:parameter>' for k, v in kv)


def beam_call(name: str, *kv: tuple[str, str], end: str = "<|call|>") -> str:
    return f"<|start|>assistant to={name}{HEAD}{params(*kv)}{end}"


def think(text: str) -> str:
    return f"<|channel|>analysis<|message|>{text}<|end|>"


SAMPLES = (
    Sample(
        "plain answer",
        "<|channel|>final<|message|>Hello! How can I help?<|return|>",
        content="Hello! How can I help?",
    ),
    Sample(
        "reasoning then answer",
        think("Simple arithmetic.") + "<|start|>assistant<|channel|>final<|message|>2 + 2 = 4.<|return|>",
        reasoning="Simple arithmetic.",
        content="2 + 2 = 4.",
    ),
    Sample(
        "reasoning then a call",
        think("Need the forecast.") + beam_call("get_weather", ("city", "Paris"), ("days", "3")),
        reasoning="Need the forecast.",
        calls=(call("get_weather", city="Paris", days=3),),
    ),
    Sample(
        "a commentary update before the call",
        think("Check first.")
        + "<|start|>assistant<|channel|>commentary<|message|>Let me check the weather.<|end|>"
        + beam_call("get_weather", ("city", "Oslo")),
        reasoning="Check first.",
        content="Let me check the weather.",
        calls=(call("get_weather", city="Oslo"),),
    ),
    Sample(
        "parallel calls closed by <|end|>",
        think("Two cities.")
        + beam_call("get_weather", ("city", "Rome"), end="<|end|>")
        + beam_call("get_weather", ("city", "Madrid"), ("days", "2")),
        reasoning="Two cities.",
        calls=(call("get_weather", city="Rome"), call("get_weather", city="Madrid", days=2)),
    ),
    Sample(
        "nested JSON values, unicode and numbers",
        think("File it.")
        + beam_call(
            "create_ticket",
            ("title", "Crash in Zürich build — 日本語 path"),
            ("labels", '["bug", "p1"]'),
            ("meta", '{"os": {"name": "linux", "arch": null}, "retries": [1, 2]}'),
            ("urgent", "true"),
            ("estimate", "2.5"),
        ),
        reasoning="File it.",
        calls=(
            call(
                "create_ticket",
                title="Crash in Zürich build — 日本語 path",
                labels=["bug", "p1"],
                meta={"os": {"name": "linux", "arch": None}, "retries": [1, 2]},
                urgent=True,
                estimate=2.5,
            ),
        ),
    ),
    Sample(
        "a multi-line value with quotes and backslashes loses one newline each side",
        think("Query.") + beam_call("run_sql", ("query", 'SELECT "a\\b"\nFROM t\nWHERE x < 3;\n')),
        reasoning="Query.",
        calls=(call("run_sql", query='SELECT "a\\b"\nFROM t\nWHERE x < 3;\n'),),
    ),
    Sample(
        "empty arguments",
        think("Just the time.") + f"<|start|>assistant to=get_time{HEAD}<|call|>",
        reasoning="Just the time.",
        calls=(call("get_time"),),
    ),
    Sample(
        "the recipient after the channel",
        think("Weather.") + "<|start|>assistant<|channel|>commentary to=get_weather <|constrain|>xml<|message|>"
        '<rfl:parameter name="city">\n'
        "Lima\n</rfl:parameter><|call|>",
        reasoning="Weather.",
        calls=(call("get_weather", city="Lima"),),
    ),
    Sample(
        "truncated inside reasoning",
        "<|channel|>analysis<|message|>We need to compare the two plans: the first",
        reasoning="We need to compare the two plans: the first",
    ),
    Sample(
        "the stop token stripped after the last parameter",
        think("Weather.") + beam_call("get_weather", ("city", "Kyiv"), end=""),
        reasoning="Weather.",
        calls=(call("get_weather", city="Kyiv"),),
    ),
    Sample(
        "truncated inside a value: content",
        think("Weather.") + f'<|start|>assistant to=get_weather{HEAD}<rfl:parameter name="city">\nBer',
        reasoning="Weather.",
        content='<rfl:parameter name="city">\nBer',
    ),
    Sample(
        "a missing </rfl:parameter> before the next parameter",
        think("Weather.") + f'<|start|>assistant to=get_weather{HEAD}<rfl:parameter name="city">\nNice\n'
        '<rfl:parameter name="days">\n5\n</rfl:parameter><|call|>',
        reasoning="Weather.",
        calls=(call("get_weather", city="Nice", days=5),),
    ),
    Sample(
        "arguments written as a JSON object (the Harmony habit)",
        think("Weather.") + "<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>json<|message|>"
        '{"city": "Hanoi", "days": 2}<|call|>',
        reasoning="Weather.",
        calls=(call("get_weather", city="Hanoi", days=2),),
    ),
    Sample(
        "a parameter tag without a name breaks the call",
        think("Weather.") + f"<|start|>assistant to=get_weather{HEAD}<rfl:parameter>\nNice\n</rfl:parameter><|call|>",
        reasoning="Weather.",
        content="<rfl:parameter>\nNice\n</rfl:parameter>",
    ),
)

SUITES = [
    Suite(
        "o200k_harmony",
        "beam",
        "beam",
        SAMPLES,
        options={"tools_schema": TOOLS_SCHEMA},
        source="Beam chat template (Harmony framing, rfl parameter tags), Beam response_template",
    ),
    Suite(
        "cl100k_base",
        "beam",
        "beam",
        (
            Sample(
                "framing as text: reasoning then a call",
                think("Need it.") + beam_call("get_weather", ("city", "Seoul")),
                reasoning="Need it.",
                calls=(call("get_weather", city="Seoul"),),
            ),
            Sample(
                "framing as text: two answers join with a blank line",
                "<|channel|>final<|message|>First part.<|end|><|start|>assistant<|channel|>final<|message|>"
                "Second part.<|return|>",
                content="First part.\n\nSecond part.",
            ),
        ),
        options={"tools_schema": TOOLS_SCHEMA},
        source="Beam chat template, served with a tokenizer without Harmony's added tokens",
    ),
]
