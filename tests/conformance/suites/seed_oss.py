"""ByteDance Seed-OSS: ``<seed:think>`` reasoning and Qwen3-Coder-style calls in ``<seed:tool_call>``.

The model opens its answer with ``<seed:think>`` (reasoning starts inside),
may report its thinking budget with ``<seed:cot_budget_reflect>`` inside
reasoning, and writes calls as::

    <seed:tool_call>
    <function=NAME>
    <parameter=KEY>VALUE</parameter>
    </function>
    </seed:tool_call>
"""

from tests.parsing.cases import glm_kv  # noqa: F401  (registers the seed-oss-test tokenizer)

from ..corpus import Sample, Suite, call
from .qwen3_coder import TOOLS_SCHEMA


def seed_call(name: str, *params: tuple[str, str]) -> str:
    body = "".join(f"<parameter={k}>{v}</parameter>\n" for k, v in params)
    return f"<seed:tool_call>\n<function={name}>\n{body}</function>\n</seed:tool_call>"


REFLECT = (
    "<seed:cot_budget_reflect>I have used 129 tokens, and there are 383 tokens remaining for use."
    "</seed:cot_budget_reflect>"
)

SAMPLES = (
    Sample(
        "reasoning then answer",
        "<seed:think>\nThe user greets me. I should greet back.\n</seed:think>\nHello! How can I help?",
        reasoning="The user greets me. I should greet back.",
        content="Hello! How can I help?",
    ),
    Sample(
        "reasoning then a call",
        "<seed:think>\nI need the weather in Tokyo.\n</seed:think>\n" + seed_call("get_weather", ("location", "Tokyo")),
        reasoning="I need the weather in Tokyo.",
        calls=(call("get_weather", location="Tokyo"),),
    ),
    Sample(
        "budget reflection tokens (added tokens) are dropped from reasoning",
        f"<seed:think>\nStep one done.\n{REFLECT}\nStep two.\n</seed:think>\nDone.",
        reasoning="Step one done.\nI have used 129 tokens, and there are 383 tokens remaining for use.\nStep two.",
        content="Done.",
    ),
    Sample(
        "thinking budget 0: content only",
        "Paris is the capital of France.",
        content="Paris is the capital of France.",
        options={"thinking": False},
    ),
    Sample(
        "truncated inside reasoning",
        "<seed:think>\nLet me enumerate the cases: first",
        reasoning="Let me enumerate the cases: first",
    ),
    Sample(
        "a call without closing reasoning",
        "<seed:think>\nI will search.\n" + seed_call("search", ("query", "seed oss"), ("limit", "3")),
        reasoning="I will search.",
        calls=(call("search", query="seed oss", limit=3),),
    ),
    Sample(
        "content and two calls",
        "<seed:think>\nTwo lookups.\n</seed:think>\nLooking up both.\n"
        + seed_call("get_weather", ("location", "Madrid"))
        + seed_call("get_weather", ("location", "Lisboa"), ("days", "2")),
        reasoning="Two lookups.",
        content="Looking up both.",
        calls=(call("get_weather", location="Madrid"), call("get_weather", location="Lisboa", days=2)),
    ),
    Sample(
        "a literal </parameter> inside a value",
        "<seed:think>\nWrite the test.\n</seed:think>\n"
        + seed_call("write_file", ("path", "t.py"), ("content", 'TAG = "</parameter>"')),
        reasoning="Write the test.",
        calls=(call("write_file", path="t.py", content='TAG = "</parameter>"'),),
    ),
    Sample(
        "missing </parameter> before </function>",
        "<seed:think>\nok\n</seed:think>\n"
        "<seed:tool_call>\n<function=get_weather>\n<parameter=location>Doha\n</function>\n</seed:tool_call>",
        reasoning="ok",
        calls=(call("get_weather", location="Doha"),),
    ),
    Sample(
        "no arguments",
        "<seed:think>\nList them.\n</seed:think>\n"
        "<seed:tool_call>\n<function=list_files>\n</function>\n</seed:tool_call>",
        reasoning="List them.",
        calls=(call("list_files"),),
    ),
    Sample(
        "truncated call is content",
        "<seed:think>\nx\n</seed:think>\n<seed:tool_call>\n<function=get_weather>\n<parameter=location>Ber",
        reasoning="x",
        content="<seed:tool_call>\n<function=get_weather>\n<parameter=location>Ber",
    ),
    Sample(
        "typed values",
        "<seed:think>\nFilter.\n</seed:think>\n"
        + seed_call("search", ("query", "llm"), ("exact", "false"), ("score", "1e-3"), ("tags", "[1, 2]")),
        reasoning="Filter.",
        calls=(call("search", query="llm", exact=False, score=0.001, tags=[1, 2]),),
    ),
)

SUITES = [
    Suite(
        "seed-oss-test",
        "seed_oss",
        "seed_oss",
        SAMPLES,
        options={"tools_schema": TOOLS_SCHEMA},
        source="Seed-OSS chat template (tool call rendering, thinking budget), Seed-OSS model card",
    )
]
