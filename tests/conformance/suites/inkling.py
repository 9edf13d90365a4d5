"""Inkling: typed content blocks, every marker an added token.

The chat template ends the prompt with ``<|message_model|>``; each block is a header
(a call's function name), a content-kind token, the body and ``<|end_message|>``::

    <|content_thinking|>REASONING<|end_message|><|message_model|>get_weather<|content_invoke_tool_json|>\
{"name": "get_weather", "args": {"city": "Paris"}}<|end_message|>
"""

from tests.parsing.cases import muse_beam_inkling  # noqa: F401  (registers the inkling-test tokenizer)

from ..corpus import Sample, Suite, call

M = "<|message_model|>"
E = "<|end_message|>"


def think(text: str) -> str:
    return f"<|content_thinking|>{text}{E}"


def text(body: str) -> str:
    return f"{M}<|content_text|>{body}{E}"


def invoke(name: str, payload: str) -> str:
    return f"{M}{name}<|content_invoke_tool_json|>{payload}{E}"


SAMPLES = (
    Sample(
        "plain answer",
        "<|content_text|>Hello! How can I help you today?" + E,
        content="Hello! How can I help you today?",
    ),
    Sample(
        "reasoning then answer",
        think("The user asks for 12 squared: 144.") + text("12² = 144."),
        reasoning="The user asks for 12 squared: 144.",
        content="12² = 144.",
    ),
    Sample(
        "reasoning then a call",
        think("The user asks for the weather in SF.")
        + invoke("get_weather", '{"name":"get_weather","args":{"city":"SF"}}'),
        reasoning="The user asks for the weather in SF.",
        calls=(call("get_weather", city="SF"),),
    ),
    Sample(
        "content before and after a call",
        think("Fetch it.")
        + text("Fetching it now.")
        + invoke("get_weather", '{"name": "get_weather", "args": {"city": "Paris", "days": 2}}')
        + text("Here is the forecast."),
        reasoning="Fetch it.",
        content="Fetching it now.\nHere is the forecast.",
        calls=(call("get_weather", city="Paris", days=2),),
    ),
    Sample(
        "several calls",
        think("Two lookups and the time.")
        + invoke("get_weather", '{"name": "get_weather", "args": {"city": "Rome"}}')
        + invoke("get_weather", '{"name": "get_weather", "args": {"city": "Oslo"}}')
        + invoke("get_time", '{"name": "get_time", "args": {"tz": "UTC"}}'),
        reasoning="Two lookups and the time.",
        calls=(call("get_weather", city="Rome"), call("get_weather", city="Oslo"), call("get_time", tz="UTC")),
    ),
    Sample(
        "nested arguments, escaped unicode, numbers, bools and null",
        think("Create it.")
        + invoke(
            "create_event",
            '{"name": "create_event", "args": {"title": "Caf\\u00e9 \\"Z\\u00f6e\\" \\ud83d\\ude80", '
            '"when": {"day": "2025-06-01", "slots": [9, 10.5, -1e2]}, "public": false, "room": null, '
            '"note": "line1\\nline2\\tend\\\\"}}',
        ),
        reasoning="Create it.",
        calls=(
            call(
                "create_event",
                title='Café "Zöe" 🚀',
                when={"day": "2025-06-01", "slots": [9, 10.5, -100.0]},
                public=False,
                room=None,
                note="line1\nline2\tend\\",
            ),
        ),
    ),
    Sample(
        "empty arguments",
        invoke("get_time", '{"name": "get_time", "args": {}}')[len(M) :],
        calls=(call("get_time"),),
    ),
    Sample(
        'arguments under "arguments"',
        think("Weather.") + invoke("get_weather", '{"name": "get_weather", "arguments": {"city": "Lima"}}'),
        reasoning="Weather.",
        calls=(call("get_weather", city="Lima"),),
    ),
    Sample(
        "a call object without arguments (a tool without parameters)",
        think("Time.") + invoke("get_time", '{"name": "get_time"}'),
        reasoning="Time.",
        calls=(call("get_time"),),
    ),
    Sample(
        "truncated inside reasoning",
        "<|content_thinking|>Let me weigh the options: option A costs",
        reasoning="Let me weigh the options: option A costs",
    ),
    Sample(
        "truncated call JSON is content verbatim",
        think("Weather.")
        + f'{M}get_weather<|content_invoke_tool_json|>{{"name": "get_weather", "args": {{"city": "Ber',
        reasoning="Weather.",
        content='{"name": "get_weather", "args": {"city": "Ber',
    ),
    Sample(
        "<|content_model_end_sampling|> ends the last block",
        think("Greet.") + f"{M}<|content_text|>Hi!<|content_model_end_sampling|>",
        reasoning="Greet.",
        content="Hi!",
    ),
    Sample(
        "<|end_message|> left out before the next content kind",
        '<|content_thinking|>Call it.<|content_invoke_tool_json|>{"name": "get_weather", "args": {"city": "Nice"}}' + E,
        reasoning="Call it.",
        calls=(call("get_weather", city="Nice"),),
    ),
    Sample(
        "a user message the model runs into is dropped",
        think("Answer.") + text("Done.") + "<|message_user|><|content_text|>thanks" + E,
        reasoning="Answer.",
        content="Done.",
    ),
    Sample(
        "a raw-text tool call is shown as content",
        think("Use the shell.") + f"{M}bash<|content_invoke_tool_text|>ls -la /tmp{E}",
        reasoning="Use the shell.",
        content="ls -la /tmp",
    ),
)

SUITES = [
    Suite(
        "inkling-test",
        "inkling",
        "inkling",
        SAMPLES,
        source="Inkling chat template (typed content blocks, JSON tool invocations), Inkling special tokens",
    )
]
