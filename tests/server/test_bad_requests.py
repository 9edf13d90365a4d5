"""Schemathesis over the service's own OpenAPI schema: valid and invalid requests to every
endpoint never get a 5xx, and every 4xx is our error shape ``{"error": {"type", "message"}}``;
and the bad requests that were cheap to send and costly to answer (issue 30).

Bounded (a few dozen examples per endpoint and mode, no shrinking, deterministic) so it runs in
well under a minute on two cores; run it longer with ``--hypothesis-profile=soak`` (tests/profiles.py).
"""

from __future__ import annotations

import json
import tracemalloc

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode

import toklane
from tests.profiles import examples
from toklane.server import create_app

EXAMPLES = examples(40)

# Small limits so that generated bodies also hit them (413) without costing time.
app = create_app(["qwen3.6"], max_body_bytes=256 * 1024, max_chunks=64)
schema = schemathesis.openapi.from_asgi("/openapi.json", app)
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
    max_examples=EXAMPLES,
    no_shrink=True,
    deterministic=True,
    database="none",
)


@schemathesis.check
def toklane_error_shape(ctx, response, case) -> bool | None:
    """Every 4xx/5xx body is ``{"error": {"type": str, "message": str}}`` and JSON."""
    if response.status_code < 400:
        return None
    assert response.headers.get("content-type", [""])[0].startswith("application/json"), response.headers
    body = response.json()
    assert isinstance(body, dict) and set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"type", "message"}, error
    assert isinstance(error["type"], str) and isinstance(error["message"], str) and error["message"], error
    return True


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck))
def test_no_5xx_and_our_error_shape(case):
    case.call_and_validate(checks=[not_a_server_error, toklane_error_shape])


# ------------------------------------------------------------------ issue 30, items 9-10
# A list of a million invalid items was validated item by item, building one error object per item
# (1M ``-1`` ids to /detokenize: 42-59 s and +1.0-1.5 GB, the event loop blocked throughout). Now
# validation stops at the first invalid item, names it with its index and counts the rest; the
# memory it takes is the body's own. The loop-stall side is in test_fairness.py.
N = 200_000
MANY_INVALID = [
    ("/detokenize", "tokens", "-1", "tokens.0: Input should be greater than or equal to 0", "integers >= 0"),
    ("/v1/detokenize", "tokens", '"a"', "tokens.0: Input should be a valid integer", "integers"),
    ("/v1/count", "texts", "1", "texts.0: Input should be a valid string", "strings"),
    ("/v1/parse", "token_ids", "null", "token_ids.0: Input should be a valid integer", "integers"),
    ("/v1/parse", "chunks", "[null]", "chunks.0.0: Input should be a valid integer", None),
    ("/v1/tokenize", "messages", "1", "messages.0: Input should be a valid dictionary", None),
]


@pytest.fixture(scope="module")
def client():
    from fastapi.testclient import TestClient

    with TestClient(create_app(["qwen3.6"]), raise_server_exceptions=False) as c:
        yield c


def _post(client, path: str, body: bytes):
    return client.post(path, content=body, headers={"content-type": "application/json"})


@pytest.mark.parametrize("path, field, item, first, what", MANY_INVALID)
def test_many_invalid_items_cost_one_error(client, path, field, item, first, what):
    body = f'{{"{field}": [{",".join([item] * N)}]}}'.encode()
    tracemalloc.start()
    try:
        r = _post(client, path, body)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert r.status_code == 422, r.text
    message = r.json()["error"]["message"]
    assert message.startswith(first), message
    if what is not None:  # lists of ids and strings also count the invalid items after the first
        assert message.endswith(f"(and {N - 1:,} more items after it that are not {what})"), message
    assert len(message) < 300, message
    # measured: 2-5 MB beside a body of 0.4-1.0 MB (before: ~1 KB per item, 200+ MB)
    assert peak < 20 * len(body) + (8 << 20), (peak, len(body))


def test_the_first_invalid_item_is_named_wherever_it_is(client):
    ids = [5] * 1000 + [-1] + [7] * 1000 + [-3, "x"]
    r = _post(client, "/detokenize", json.dumps({"tokens": ids}).encode())
    message = r.json()["error"]["message"]
    assert r.status_code == 422 and message.startswith("tokens.1000: Input should be greater than or equal to 0")
    assert message.endswith("(and 2 more items after it that are not integers >= 0)"), message
    r = _post(client, "/v1/detokenize", json.dumps({"tokens": [1, 2, 2.5]}).encode())
    assert r.json()["error"]["message"] == (
        "tokens.2: Input should be a valid integer, got a number with a fractional part"
    )  # nothing after it: no count


def test_many_unknown_fields_are_named_five_at_a_time(client):
    body = {f"k{i}": 1 for i in range(10_000)} | {"text": "x"}
    message = _post(client, "/v1/count", json.dumps(body).encode()).json()["error"]["message"]
    assert message.count('unknown field "') == 5 and message.endswith("and 9,995 more unknown fields"), message


def test_valid_long_id_lists_are_accepted_in_bulk(client):
    """A valid list skips pydantic's per-item pass (checked in bulk); lax items still go through it."""
    ids = list(range(1000, 101_000))
    text = client.post("/v1/detokenize", json={"tokens": ids}).json()["text"]
    assert text == toklane.load_tokenizer("qwen3.6").decode(ids)
    assert client.post("/detokenize", json={"tokens": [*ids[:300], True, "7"]}).status_code == 200


def _tool(properties: int, name: str = "f") -> dict:
    props = {f"p{i}": {"type": "string"} for i in range(properties)}
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": props}}}


HI = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    "path, body",
    [
        ("/tokenize", {"messages": HI, "tools": [_tool(20_000)]}),  # one huge tool schema
        ("/v1/count", {"messages": HI, "tools": [_tool(20_000)]}),
        ("/tokenize", {"messages": HI, "tools": [_tool(1, f"f{i}") for i in range(5_000)]}),  # many tools
        ("/v1/count", {"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}] * 3}] * 5_000}),
    ],
)
def test_huge_tool_schemas_and_message_floods_are_answered_as_the_library_counts(client, path, body):
    """Large tool definitions and message lists are counted like small ones (the work runs in the
    worker pool: their size is the body's); the encoder that renders a schema of 20,000 properties
    is json's Python one, whose text is the same."""
    r = client.post(path, json=body)
    assert r.status_code == 200, r.text
    count = r.json()["count"]
    gen = path == "/tokenize"  # vLLM's /tokenize adds the generation prompt by default
    expected = toklane.count_tokens(
        body["messages"], model="qwen3.6", tools=body.get("tools"), add_generation_prompt=gen
    )
    assert count == expected, (count, expected)
