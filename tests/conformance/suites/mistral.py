"""Mistral (``mistral`` tools) and Magistral (``mistral`` reasoning).

Before tokenizer v11 (Mistral-7B-Instruct-v0.3, Mistral-Nemo, Mistral-Small-3.1) a turn's calls are one JSON
list after ``[TOOL_CALLS]``; from v11 (Mistral-Small-3.2, Devstral, Magistral) each call is
``[TOOL_CALLS]NAME[ARGS]{...}``, optionally with ``[CALL_ID]ID`` before ``[ARGS]``. Magistral's system
prompt asks the model to write ``[THINK]...[/THINK]`` before its answer: the output opens the reasoning.
"""

from ..corpus import Sample, Suite, call

TC = "[TOOL_CALLS]"

PRE_V11 = Suite(
    "mistral-tekken",
    None,
    "mistral",
    (
        Sample(
            "v0.3 list with a space after the marker",
            TC + ' [{"name": "get_current_weather", "arguments": {"location": "Paris, France", "format": "celsius"}}]',
            calls=(call("get_current_weather", location="Paris, France", format="celsius"),),
        ),
        Sample(
            "Nemo list of two calls after a sentence",
            "I'll look both up."
            + TC
            + '[{"name": "get_weather", "arguments": {"city": "Tokyo"}}, '
            + '{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}]',
            content="I'll look both up.",
            calls=(call("get_weather", city="Tokyo"), call("get_time", timezone="Asia/Tokyo")),
        ),
        Sample(
            "nested, unicode and escaped arguments",
            TC + '[{"name": "send_email", "arguments": {"to": ["zoë@example.com"], "body": "Line 1\\nSay \\"hi\\" 👋", '
            '"meta": {"priority": 2, "tags": []}}}]',
            calls=(
                call(
                    "send_email", to=["zoë@example.com"], body='Line 1\nSay "hi" 👋', meta={"priority": 2, "tags": []}
                ),
            ),
        ),
        Sample(
            "call list after junk: the junk is content",
            TC + 'Here are the calls: [{"name": "get_time", "arguments": {}}]',
            content="Here are the calls:",
            calls=(call("get_time"),),
        ),
        Sample(
            "list in a Markdown fence",
            TC + '```json\n[{"name": "search", "arguments": {"query": "mistral nemo"}}]\n```',
            calls=(call("search", query="mistral nemo"),),
        ),
        Sample(
            "one bare call object instead of a list",
            TC + '{"name": "get_weather", "arguments": {"city": "Lyon"}}',
            calls=(call("get_weather", city="Lyon"),),
        ),
        Sample(
            "list cut off inside the second call: the first is kept",
            TC + '[{"name": "get_weather", "arguments": {"city": "Oslo"}}, {"name": "get_weather", "arguments": {"ci',
            content=', {"name": "get_weather", "arguments": {"ci',
            calls=(call("get_weather", city="Oslo"),),
        ),
        Sample(
            "marker then prose, no call: content without the control token",
            "Let me think." + TC + "Actually, I can answer directly: it is 12°C.",
            content="Let me think.Actually, I can answer directly: it is 12°C.",
        ),
        Sample(
            "plain answer",
            "Paris is the capital of France.",
            content="Paris is the capital of France.",
        ),
    ),
    source="Mistral-7B-Instruct-v0.3 / Mistral-Nemo chat templates (mistral-common v3/v7 tokenizers)",
)

V11 = Suite(
    "magistral",
    "mistral",
    "mistral",
    (
        Sample(
            "Magistral: reasoning then answer",
            "[THINK]The user asks for 17 * 3. 17 * 3 = 51.[/THINK]17 × 3 = **51**.",
            reasoning="The user asks for 17 * 3. 17 * 3 = 51.",
            content="17 × 3 = **51**.",
        ),
        Sample(
            "no reasoning (reasoning off): plain answer",
            "Bonjour ! Comment puis-je vous aider ?",
            content="Bonjour ! Comment puis-je vous aider ?",
        ),
        Sample(
            "reasoning then one call",
            '[THINK]I need the weather in Paris.[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "unit": "c"}',
            reasoning="I need the weather in Paris.",
            calls=(call("get_weather", city="Paris", unit="c"),),
        ),
        Sample(
            "reasoning, text, then two calls",
            "[THINK]Two lookups.[/THINK]Let me check both.\n\n"
            '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_time[ARGS]{"tz": "Europe/Paris"}',
            reasoning="Two lookups.",
            content="Let me check both.",
            calls=(call("get_weather", city="Paris"), call("get_time", tz="Europe/Paris")),
        ),
        Sample(
            "v11 call ids, empty arguments",
            "[TOOL_CALLS]list_files[CALL_ID]a1B2c3D4e[ARGS]{}[TOOL_CALLS]get_time[CALL_ID]Zz9Yy8Xx7[ARGS]{}",
            calls=(call("list_files"), call("get_time")),
        ),
        Sample(
            "nested and unicode arguments",
            '[TOOL_CALLS]create_event[ARGS]{"title": "Réunion 🗓", "attendees": [{"name": "Zoë"}], '
            '"when": {"start": "2025-06-01T09:00", "all_day": false}, "note": "a \\"quoted\\" word"}',
            calls=(
                call(
                    "create_event",
                    title="Réunion 🗓",
                    attendees=[{"name": "Zoë"}],
                    when={"start": "2025-06-01T09:00", "all_day": False},
                    note='a "quoted" word',
                ),
            ),
        ),
        Sample(
            "a call inside unclosed reasoning ends it",
            '[THINK]I should search for this.[TOOL_CALLS]search[ARGS]{"q": "magistral"}',
            reasoning="I should search for this.",
            calls=(call("search", q="magistral"),),
        ),
        Sample(
            "text after a call is content",
            '[TOOL_CALLS]get_weather[ARGS]{"city": "Rome"} I will report back.',
            content="I will report back.",
            calls=(call("get_weather", city="Rome"),),
        ),
        Sample(
            "truncated v11 call (max_tokens): content without the marker",
            '[THINK]Weather lookup.[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": "Ber',
            reasoning="Weather lookup.",
            content='get_weather[ARGS]{"city": "Ber',
        ),
        Sample(
            "second call truncated: the first is kept",
            '[TOOL_CALLS]get_time[ARGS]{"tz": "UTC"}[TOOL_CALLS]get_weather[ARGS]{"city"',
            content='get_weather[ARGS]{"city"',
            calls=(call("get_time", tz="UTC"),),
        ),
        Sample(
            "arguments without [ARGS]",
            '[TOOL_CALLS]get_weather{"city": "Madrid"}',
            calls=(call("get_weather", city="Madrid"),),
        ),
        Sample(
            "invalid JSON arguments: content without the marker",
            "[TOOL_CALLS]get_weather[ARGS]{city: Paris}",
            content="get_weather[ARGS]{city: Paris}",
        ),
        Sample(
            "lone marker at the end: nothing",
            "[THINK]Maybe a tool.[/THINK]Sure.[TOOL_CALLS]",
            reasoning="Maybe a tool.",
            content="Sure.",
        ),
        Sample(
            "truncated reasoning",
            "[THINK]Let me work through the integral step by step",
            reasoning="Let me work through the integral step by step",
        ),
        Sample(
            "pre-filled [THINK] (thinking=True)",
            "Simple greeting.[/THINK]Hello!",
            reasoning="Simple greeting.",
            content="Hello!",
            options={"thinking": True},
        ),
        Sample(
            "pre-filled and repeated [THINK] (thinking=True)",
            "[THINK]Simple greeting.[/THINK]Hello!",
            reasoning="Simple greeting.",
            content="Hello!",
            options={"thinking": True},
        ),
        Sample(
            "stray [/THINK] opening the reply is dropped",
            "[/THINK]The answer is 42.",
            content="The answer is 42.",
        ),
    ),
    source="Magistral-Small-2509 / Mistral-Small-3.2 chat templates and SYSTEM_PROMPT.txt (mistral-common v11/v13)",
)

SUITES = [PRE_V11, V11]
