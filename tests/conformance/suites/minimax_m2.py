"""MiniMax-M2 / M2.1 / M2.5: ``<think>`` reasoning (pre-filled by the template) and XML invokes.

The chat template ends the prompt with ``<think>\\n``, so the output starts inside
reasoning; ``</think>`` ends it. Calls, as the template renders them::

    <minimax:tool_call>
    <invoke name="NAME">
    <parameter name="KEY">VALUE</parameter>
    </invoke>
    </minimax:tool_call>

Values are typed by ``tools_schema`` (lists and objects as JSON).
"""

from tests.parsing.cases import deepseek_minimax_step  # noqa: F401  (registers the minimax-m2-test tokenizer)

from ..corpus import Sample, Suite, call


def fn(name: str, **props: str) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": {k: {"type": t} for k, t in props.items()}},
        },
    }


TOOLS_SCHEMA = [
    fn("get_weather", location="string", days="integer", unit="string"),
    fn("search_web", query_list="array", query_tag="array", limit="integer"),
    fn("create_event", title="string", attendees="array", options="object", all_day="boolean", reminder="number"),
    fn("run_code", code="string", timeout="number", env="object"),
    fn("get_time"),
]


def invoke(name: str, *params: tuple[str, str]) -> str:
    body = "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in params)
    return f'<invoke name="{name}">\n{body}</invoke>\n'


def block(*invokes: str) -> str:
    return "<minimax:tool_call>\n" + "".join(invokes) + "</minimax:tool_call>"


SAMPLES = (
    Sample(
        "reasoning then answer",
        "The user greets me; answer briefly.\n</think>\n\nHello! How can I help you today?",
        reasoning="The user greets me; answer briefly.",
        content="Hello! How can I help you today?",
    ),
    Sample(
        "thinking closed by the prompt: plain answer",
        "The capital of France is Paris.",
        content="The capital of France is Paris.",
        options={"thinking": False},
    ),
    Sample(
        "reasoning then a call",
        "The user wants the weather in Tokyo. I'll call get_weather.\n</think>\n\n"
        + block(invoke("get_weather", ("location", "Tokyo"), ("days", "3"))),
        reasoning="The user wants the weather in Tokyo. I'll call get_weather.",
        calls=(call("get_weather", location="Tokyo", days=3),),
    ),
    Sample(
        "content before the call and after it",
        "Need fresh data.\n</think>\n\nLet me check the forecast first.\n"
        + block(invoke("get_weather", ("location", "Berlin")))
        + "\nI'll report back once it returns.",
        reasoning="Need fresh data.",
        content="Let me check the forecast first.\nI'll report back once it returns.",
        calls=(call("get_weather", location="Berlin"),),
    ),
    Sample(
        "several invokes in one block",
        "Two searches and the time.\n</think>\n\n"
        + block(
            invoke("search_web", ("query_list", '["OpenAI release", "Gemini release"]'), ("query_tag", '["tech"]')),
            invoke("search_web", ("query_list", '["MiniMax M2"]'), ("limit", "5")),
            invoke("get_time", ("tz", "Europe/Paris")),
        ),
        reasoning="Two searches and the time.",
        calls=(
            call("search_web", query_list=["OpenAI release", "Gemini release"], query_tag=["tech"]),
            call("search_web", query_list=["MiniMax M2"], limit=5),
            call("get_time", tz="Europe/Paris"),
        ),
    ),
    Sample(
        "nested objects, arrays, unicode, numbers, bools and null",
        "Create the event.\n</think>\n\n"
        + block(
            invoke(
                "create_event",
                ("title", "Réunion d'équipe 🚀 東京"),
                ("attendees", '[{"name": "Zoë", "email": "zoe@example.com"}, {"name": "李雷", "optional": true}]'),
                ("options", '{"room": null, "repeat": {"weekly": true, "count": 4}, "tags": []}'),
                ("all_day", "false"),
                ("reminder", "-1.5e1"),
            )
        ),
        reasoning="Create the event.",
        calls=(
            call(
                "create_event",
                title="Réunion d'équipe 🚀 東京",
                attendees=[{"name": "Zoë", "email": "zoe@example.com"}, {"name": "李雷", "optional": True}],
                options={"room": None, "repeat": {"weekly": True, "count": 4}, "tags": []},
                all_day=False,
                reminder=-15.0,
            ),
        ),
    ),
    Sample(
        "code with quotes, backslashes and angle brackets is a verbatim string",
        "Run it.\n</think>\n\n"
        + block(
            invoke(
                "run_code",
                ("code", "print(\"a\\tb\")\nif x < 3 and y > 2:\n    s = '<tag>'"),
                ("timeout", "30"),
                ("env", '{"PATH": "C:\\\\bin", "QUOTE": "\\"q\\""}'),
            )
        ),
        reasoning="Run it.",
        calls=(
            call(
                "run_code",
                code="print(\"a\\tb\")\nif x < 3 and y > 2:\n    s = '<tag>'",
                timeout=30,
                env={"PATH": "C:\\bin", "QUOTE": '"q"'},
            ),
        ),
    ),
    Sample(
        "empty arguments",
        "Just the time.\n</think>\n\n" + block('<invoke name="get_time">\n</invoke>\n'),
        reasoning="Just the time.",
        calls=(call("get_time"),),
    ),
    Sample(
        "a call block ends reasoning without </think>",
        "I should look this up.\n" + block(invoke("get_weather", ("location", "Lima"))),
        reasoning="I should look this up.",
        calls=(call("get_weather", location="Lima"),),
    ),
    Sample(
        "truncated inside reasoning",
        "Let me think about the edge cases: first, the empty",
        reasoning="Let me think about the edge cases: first, the empty",
    ),
    Sample(
        "truncated inside a value: the call is content",
        'Weather.\n</think>\n\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="location">San Fr',
        reasoning="Weather.",
        content='<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="location">San Fr',
    ),
    Sample(
        "missing </parameter> and </invoke> before the block's closer",
        'Time.\n</think>\n\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="location">Oslo\n'
        "</minimax:tool_call>",
        reasoning="Time.",
        calls=(call("get_weather", location="Oslo"),),
    ),
    Sample(
        "tool markup echoed in reasoning stays reasoning text",
        'I could emit <invoke name="get_time"> but no call is needed.\n</think>\n\nIt is noon in UTC.',
        reasoning='I could emit <invoke name="get_time"> but no call is needed.',
        content="It is noon in UTC.",
    ),
    Sample(
        "a second call block after prose",
        "Sequential.\n</think>\n\n"
        + block(invoke("get_weather", ("location", "Rome")))
        + "\nAnd the time:\n"
        + block(invoke("get_time")),
        reasoning="Sequential.",
        content="And the time:",
        calls=(call("get_weather", location="Rome"), call("get_time")),
    ),
)

SUITES = [
    Suite(
        "minimax-m2-test",
        "minimax_m2",
        "minimax_m2",
        SAMPLES,
        options={"tools_schema": TOOLS_SCHEMA},
        source="MiniMax-M2 chat template (pre-filled <think>, tool call rendering), MiniMax-M2 tool calling guide",
    )
]
