"""AI21 Jamba 1.5+ (``jamba`` tools): ``<tool_calls>[...]</tool_calls>`` (added tokens) after the answer text."""

from ..corpus import Sample, Suite, call

TS, TE = "<tool_calls>", "</tool_calls>"

SUITES = [
    Suite(
        "jamba-test",
        None,
        "jamba",
        (
            Sample(
                "plain answer",
                "Jamba is a hybrid SSM-Transformer model.",
                content="Jamba is a hybrid SSM-Transformer model.",
            ),
            Sample(
                "one call",
                f'{TS}[{{"name": "get_weather", "arguments": {{"city": "Tel Aviv", "unit": "celsius"}}}}]{TE}',
                calls=(call("get_weather", city="Tel Aviv", unit="celsius"),),
            ),
            Sample(
                "content before a call",
                f'Let me check.\n{TS}[{{"name": "get_stock_price", "arguments": {{"ticker": "AI21"}}}}]{TE}',
                content="Let me check.",
                calls=(call("get_stock_price", ticker="AI21"),),
            ),
            Sample(
                "several calls in one list",
                f'{TS}[{{"name": "get_weather", "arguments": {{"city": "Haifa"}}}}, '
                f'{{"name": "get_weather", "arguments": {{"city": "Eilat"}}}}, '
                f'{{"name": "get_time", "arguments": {{"timezone": "Asia/Jerusalem"}}}}]{TE}',
                calls=(
                    call("get_weather", city="Haifa"),
                    call("get_weather", city="Eilat"),
                    call("get_time", timezone="Asia/Jerusalem"),
                ),
            ),
            Sample(
                "pretty-printed list",
                f'{TS}[\n  {{\n    "name": "search",\n    "arguments": {{\n      "query": "SSM"\n    }}\n  }}\n]{TE}',
                calls=(call("search", query="SSM"),),
            ),
            Sample(
                "nested, unicode, escapes, numbers, booleans and null",
                f'{TS}[{{"name": "translate", "arguments": {{"text": "שלום \\"עולם\\"\\n", '
                f'"targets": ["fr", "日本語"], '
                f'"options": {{"formal": true, "glossary": null, "max_len": 120, "temperature": 0.2}}, '
                f'"cache": false}}}}]{TE}',
                calls=(
                    call(
                        "translate",
                        text='שלום "עולם"\n',
                        targets=["fr", "日本語"],
                        options={"formal": True, "glossary": None, "max_len": 120, "temperature": 0.2},
                        cache=False,
                    ),
                ),
            ),
            Sample(
                "empty arguments",
                f'{TS}[{{"name": "get_time", "arguments": {{}}}}]{TE}',
                calls=(call("get_time"),),
            ),
            Sample(
                "closing token missing",
                f'{TS}[{{"name": "get_weather", "arguments": {{"city": "Jaffa"}}}}]',
                calls=(call("get_weather", city="Jaffa"),),
            ),
            Sample(
                "text after the block is content",
                f'{TS}[{{"name": "search", "arguments": {{"query": "Jamba 1.5"}}}}]{TE}\nSearching now.',
                content="Searching now.",
                calls=(call("search", query="Jamba 1.5"),),
            ),
            Sample(
                "truncated call is content",
                f'Sure.{TS}[{{"name": "get_weather", "arguments": {{"city": "Nazar',
                content=f'Sure.{TS}[{{"name": "get_weather", "arguments": {{"city": "Nazar',
            ),
            Sample(
                "closing token inside the arguments breaks the call",
                f'{TS}[{{"name": "get_weather", "arguments": {{"city": {TE}',
                content=f'{TS}[{{"name": "get_weather", "arguments": {{"city": {TE}',
            ),
            Sample(
                "a bare object instead of the list is content",
                f'{TS}{{"name": "get_weather", "arguments": {{"city": "Acre"}}}}{TE}',
                content=f'{TS}{{"name": "get_weather", "arguments": {{"city": "Acre"}}}}{TE}',
            ),
            Sample(
                "stray closing token stays content",
                f"No tools needed.{TE}",
                content=f"No tools needed.{TE}",
            ),
        ),
        source="ai21labs/AI21-Jamba-1.5-Mini chat template and model card; vLLM jamba",
    )
]
