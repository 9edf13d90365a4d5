"""Liquid LFM2 / LFM2.5: ``<|tool_call_start|>[f(a=1), g(b="x")]<|tool_call_end|>`` (added tokens).

The model card's examples put the call block first and the answer after it; the template's
tool-use instructions also allow JSON call objects. Real outputs add leading-zero integers,
JSON literal names, raw line breaks in strings, an echo of the calls after the end token, and
calls whose arguments are no literal.
"""

from ..corpus import Sample, Suite, call

TS, TE = "<|tool_call_start|>", "<|tool_call_end|>"

SAMPLES = (
    Sample(
        "one call then content",
        f'{TS}[get_candidate_status(candidate_id="12345")]{TE}Checking the current status of candidate ID 12345.',
        content="Checking the current status of candidate ID 12345.",
        calls=(call("get_candidate_status", candidate_id="12345"),),
    ),
    Sample(
        "content then two calls",
        f'I\'ll check both.\n{TS}[get_weather(location="Paris"), get_time(tz="CET")]{TE}',
        content="I'll check both.",
        calls=(call("get_weather", location="Paris"), call("get_time", tz="CET")),
    ),
    Sample("plain answer", "Hi! How can I help?", content="Hi! How can I help?"),
    Sample(
        "a JSON call object",
        f'{TS}[{{"name": "calculator", "arguments": {{"expression": "5 * 7"}}}}]{TE}',
        calls=(call("calculator", expression="5 * 7"),),
    ),
    Sample(
        "one call without brackets",
        f'{TS}calculator(expression="5 * 7"){TE}',
        calls=(call("calculator", expression="5 * 7"),),
    ),
    Sample(
        "JSON literal names and a leading zero",
        f"{TS}[book(date='2025-07-04', month=07, confirm=true, note=null)]{TE}",
        calls=(call("book", date="2025-07-04", month=7, confirm=True, note=None),),
    ),
    Sample(
        "a parameter named like a Python keyword",
        f"{TS}[memory_get(from=1, limit=5)]{TE}",
        calls=(call("memory_get", **{"from": 1, "limit": 5}),),
    ),
    Sample(
        "the calls echoed after the end token",
        f'{TS}[get_weather(city="Paris")]{TE}[get_weather(city="Paris")]{TE}It is sunny.',
        content="It is sunny.",
        calls=(call("get_weather", city="Paris"),),
    ),
    Sample(
        "a positional argument: its call is content, the others are kept",
        f'{TS}[get_weather(city="Paris"), get_time(Paris), get_news(topic="tech")]{TE}',
        content="get_time(Paris)",
        calls=(call("get_weather", city="Paris"), call("get_news", topic="tech")),
    ),
    Sample(
        "the closing bracket is missing",
        f'{TS}[get_weather(city="Paris"){TE}Done.',
        content="Done.",
        calls=(call("get_weather", city="Paris"),),
    ),
    Sample("cut inside the first call", f'{TS}[get_weather(city="Par', content=f'{TS}[get_weather(city="Par'),
    Sample(
        "the end token inside a string",
        f"{TS}[say(text='{TE} is a token')]{TE}",
        calls=(call("say", text=f"{TE} is a token"),),
    ),
    Sample(
        "unicode and a raw line break",
        f"{TS}[run(cmd='cd /tmp\nls -la', label=\"Überprüfung ✓\")]{TE}",
        calls=(call("run", cmd="cd /tmp\nls -la", label="Überprüfung ✓"),),
    ),
)

SUITES = [
    Suite(
        "lfm2-test",
        None,
        "lfm2",
        SAMPLES,
        source="LFM2 / LFM2.5 model card and chat template (tool_call_start/end special tokens)",
    )
]
