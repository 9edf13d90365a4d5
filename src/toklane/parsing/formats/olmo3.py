"""OLMo 3.

Reasoning (OLMo 3 Think): ``<think>...</think>`` spelled with ordinary
tokens. The markers are matched as text: on the bytes of ordinary tokens when
parsing ids, so ``" </" "think" ">\\n"`` and ``".</" "think" ">The"`` are both
found.

Tools (OLMo 3 Instruct): pythonic calls, one per line, inside
``<function_calls>...</function_calls>``::

    <function_calls>get_weather(city="Paris")
    get_time(tz="UTC")</function_calls>

The markers are added tokens in the Instruct tokenizer and ordinary text in
others, so they are matched as text (by id where they are tokens). Values
may use JSON's ``true``/``false``/``null``; a list in brackets is accepted too.
A call whose arguments are no literals is skipped, its text content, and the
calls after it are kept (as SGLang does for the same grammar in LFM2 and
pythonic lists; vLLM drops every call of the block).
"""

from ..bodies.pythonic import PythonicList
from ..spec import ReasoningFormat, ReasoningMarkers, ToolFormat
from ..tables import Marker

REASONING = ReasoningFormat(
    "olmo3",
    ReasoningMarkers(
        "olmo3",
        "<think>",
        "</think>",
        "</think>",
        True,
        "OLMo 3 Think: <think>...</think> spelled with ordinary tokens (matched on token bytes)",
    ),
    token=False,
    family="OLMo",
)

TOOLS = ToolFormat(
    name="olmo3",
    description='OLMo 3: <function_calls>f(a=1)\\ng(b="x")</function_calls> (pythonic, one call per line)',
    markers=(
        Marker("calls_start", "<function_calls>", token=False),
        Marker("calls_end", "</function_calls>", token=False),
    ),
    block_starts=frozenset({"calls_start"}),
    body=PythonicList,
    body_options={"end_role": "calls_end", "bare": True, "lenient": True},
    family="OLMo",
)
