"""K2 Horizon (``k2_horizon``): ``<ifm|...>`` key/value calls in a group, optional ``<ifm|arg_type>``."""

from ..corpus import Sample, Suite, call


def kv(name: str, *pairs: tuple[str, ...]) -> str:
    """A call: each pair ``(key, value)`` or ``(key, type, value)`` (the ``xml_typed`` tool format)."""
    body = ""
    for p in pairs:
        typ = f"<ifm|arg_type>{p[1]}</ifm|arg_type>" if len(p) == 3 else ""
        body += f"<ifm|arg_key>{p[0]}</ifm|arg_key>{typ}<ifm|arg_value>{p[-1]}</ifm|arg_value>"
    return f"<ifm|tool_call>{name}{body}</ifm|tool_call>"


def group(*calls: str) -> str:
    return "<ifm|tool_calls>" + "".join(calls) + "</ifm|tool_calls>"


SUITES = [
    Suite(
        "k2-horizon-test",
        "k2_horizon",
        "k2_horizon",
        (
            Sample(
                "reasoning then answer",
                "A greeting.</ifm|think>Hi! What can I do for you?",
                reasoning="A greeting.",
                content="Hi! What can I do for you?",
            ),
            Sample(
                "medium effort pair",
                "Quick check.</ifm|think_fast>It is 4.",
                reasoning="Quick check.",
                content="It is 4.",
            ),
            Sample(
                "reasoning then typed calls",
                "Look both up.</ifm|think>On it."
                + group(kv("lookup", ("id", "integer", "42")), kv("lookup", ("id", "string", "42"))),
                reasoning="Look both up.",
                content="On it.",
                calls=(call("lookup", id=42), call("lookup", id="42")),
            ),
            Sample(
                "untyped values: strings, objects",
                "</ifm|think>" + group(kv("search", ("query", "café ☕"), ("filters", '{"year": [2024, 2025]}'))),
                calls=(call("search", query="café ☕", filters={"year": [2024, 2025]}),),
            ),
            Sample(
                "typed scalars, list and escapes",
                "</ifm|think>"
                + group(
                    kv(
                        "f",
                        ("flag", "boolean", "false"),
                        ("ratio", "number", "0.25"),
                        ("ids", "list[int]", "[1, 2]"),
                        ("raw", "any", 'a "quoted" \\ path'),
                        ("nothing", "null", "null"),
                    )
                ),
                calls=(call("f", flag=False, ratio=0.25, ids=[1, 2], raw='a "quoted" \\ path', nothing=None),),
            ),
            Sample(
                "empty arguments", "</ifm|think>" + group("<ifm|tool_call>now</ifm|tool_call>"), calls=(call("now"),)
            ),
            Sample(
                "call without its group",
                "</ifm|think>" + kv("search", ("query", "x")),
                calls=(call("search", query="x"),),
            ),
            Sample(
                "group opened inside reasoning ends it",
                "I need the file" + group(kv("read", ("path", "a.txt"))),
                reasoning="I need the file",
                calls=(call("read", path="a.txt"),),
            ),
            Sample("reasoning cut off", "Consider the base case wh", reasoning="Consider the base case wh"),
            Sample(
                "call cut inside a value",
                "Go.</ifm|think><ifm|tool_calls><ifm|tool_call>search<ifm|arg_key>query</ifm|arg_key><ifm|arg_value>ab",
                reasoning="Go.",
                content="<ifm|tool_calls><ifm|tool_call>search<ifm|arg_key>query</ifm|arg_key><ifm|arg_value>ab",
            ),
            Sample(
                "empty group is content",
                "</ifm|think>Done.<ifm|tool_calls></ifm|tool_calls>",
                content="Done.<ifm|tool_calls></ifm|tool_calls>",
            ),
        ),
        source="K2 Horizon chat template (xml and xml_typed tool formats, reasoning_effort pairs)",
    )
]
