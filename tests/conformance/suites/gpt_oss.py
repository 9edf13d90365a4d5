"""gpt-oss (Harmony): outputs as the model emits them after ``<|start|>assistant``, and the text
form a server hands over when it decodes with ``skip_special_tokens``."""

from ..corpus import Sample, Suite, call

S = "<|start|>assistant"
J = "<|constrain|>json<|message|>"

SAMPLES = (
    Sample(
        "analysis then final",
        "<|channel|>analysis<|message|>User greets. Reply briefly.<|end|>"
        f"{S}<|channel|>final<|message|>Hello! How can I help you today?<|return|>",
        reasoning="User greets. Reply briefly.",
        content="Hello! How can I help you today?",
    ),
    Sample(
        "analysis then a function call",
        "<|channel|>analysis<|message|>Need to use function get_current_weather.<|end|>"
        f'{S}<|channel|>commentary to=functions.get_current_weather {J}{{"location":"San Francisco, CA"}}<|call|>',
        reasoning="Need to use function get_current_weather.",
        calls=(call("get_current_weather", location="San Francisco, CA"),),
    ),
    Sample(
        "preamble then two calls",
        "<|channel|>analysis<|message|>Two lookups.<|end|>"
        f"{S}<|channel|>commentary<|message|>Checking both cities.<|end|>"
        f'{S}<|channel|>commentary to=functions.get_weather {J}{{"location": "Tokyo"}}<|call|>'
        f'{S}<|channel|>commentary to=functions.get_weather {J}{{"location": "Paris", "unit": "celsius"}}<|call|>',
        reasoning="Two lookups.",
        content="Checking both cities.",
        calls=(call("get_weather", location="Tokyo"), call("get_weather", location="Paris", unit="celsius")),
    ),
    Sample(
        "recipient before the channel in the first header",
        ' to=functions.get_weather<|channel|>commentary json<|message|>{"location": "Tokyo"}<|call|>',
        calls=(call("get_weather", location="Tokyo"),),
    ),
    Sample(
        "recipient before the channel, constrained",
        f' to=functions.search<|channel|>commentary {J}{{"query": "café ☕", "limit": 3}}<|call|>',
        calls=(call("search", query="café ☕", limit=3),),
    ),
    Sample(
        "nested arguments with escapes",
        "<|channel|>commentary to=functions.create_event <|constrain|>json<|message|>"
        '{"title": "Review \\"Q3\\"", "attendees": ["a@x.io", "b@x.io"], "when": {"day": 3, "all_day": false}, '
        '"note": null}<|call|>',
        calls=(
            call(
                "create_event",
                title='Review "Q3"',
                attendees=["a@x.io", "b@x.io"],
                when={"day": 3, "all_day": False},
                note=None,
            ),
        ),
    ),
    Sample(
        "empty arguments",
        "<|channel|>analysis<|message|>Just list them.<|end|>"
        f"{S}<|channel|>commentary to=functions.list_files {J}{{}}<|call|>",
        reasoning="Just list them.",
        calls=(call("list_files"),),
    ),
    Sample(
        "built-in browser tool",
        "<|channel|>analysis<|message|>Search the web.<|end|>"
        f'{S}<|channel|>analysis to=browser.search {J}{{"query": "gpt-oss release", "topn": 5}}<|call|>',
        reasoning="Search the web.",
        calls=(call("browser.search", query="gpt-oss release", topn=5),),
    ),
    Sample(
        "built-in python tool",
        "<|channel|>analysis<|message|>Compute it.<|end|>"
        f"{S}<|channel|>analysis to=python code<|message|>import math\nprint(math.factorial(10))<|call|>",
        reasoning="Compute it.",
        calls=(call("python", code="import math\nprint(math.factorial(10))"),),
    ),
    Sample(
        "reasoning cut off",
        "<|channel|>analysis<|message|>The user asks about prime numbers. Let me think about",
        reasoning="The user asks about prime numbers. Let me think about",
    ),
    Sample(
        "final cut off before <|return|>",
        f"<|channel|>analysis<|message|>Easy.<|end|>{S}<|channel|>final<|message|>The answer is",
        reasoning="Easy.",
        content="The answer is",
    ),
    Sample(
        "call cut off inside its arguments",
        "<|channel|>analysis<|message|>Look up.<|end|>"
        f'{S}<|channel|>commentary to=functions.get_weather {J}{{"location": "Ber',
        reasoning="Look up.",
        content='{"location": "Ber',
    ),
    Sample(
        "<|message|> after an end marker",
        "<|channel|>final<|message|>a<|end|><|message|>b<|end|>",
        content="a\n\nb",
    ),
    Sample(
        "unknown channel dropped",
        "<|channel|>analysis<|message|>x<|end|>"
        f"{S}<|channel|>notes<|message|>scratch<|end|>{S}<|channel|>final<|message|>ok<|return|>",
        reasoning="x",
        content="ok",
    ),
    Sample(
        "skipped <|start|> before a header",
        "<|channel|>analysis<|message|>Think.<|end|>assistant<|channel|>final<|message|>Done.<|return|>",
        reasoning="Think.",
        content="Done.",
    ),
    Sample(
        "commentary filler after a call",
        '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}<|call|>commentary',
        calls=(call("f", a=1),),
    ),
    Sample(
        "text form: analysis then final",
        "analysisThe user asks about the weather in Tokyo.assistantfinalIt is sunny and 22 °C in Tokyo.",
        reasoning="The user asks about the weather in Tokyo.",
        content="It is sunny and 22 °C in Tokyo.",
    ),
    Sample(
        "text form: analysis then a call",
        'analysisNeed the weather tool.assistantcommentary to=functions.get_weather json{"location": "Tokyo"}',
        reasoning="Need the weather tool.",
        calls=(call("get_weather", location="Tokyo"),),
    ),
    Sample(
        "text form: final only",
        "assistantfinalHello there!",
        content="Hello there!",
    ),
    Sample(
        "text form: python tool then answer",
        "analysisUse python.assistantanalysis to=python codeprint(6 * 7)assistantfinal42",
        reasoning="Use python.",
        content="42",
        calls=(call("python", code="print(6 * 7)"),),
    ),
)

SUITES = [
    Suite("o200k_harmony", "gpt_oss", "gpt_oss", SAMPLES, source="openai-harmony docs, gpt-oss model card"),
]
