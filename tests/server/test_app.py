"""HTTP endpoints against the app in-process (httpx via Starlette's TestClient)."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

import toklane
from tests.server.live import error_message as _error
from toklane.server import create_app


@pytest.fixture(scope="module")
def client():
    app = create_app(["qwen3.6", "llama3"], max_body_bytes=64 * 1024)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def test_health_and_models(client):
    assert client.get("/health").json()["status"] == "ok"
    data = client.get("/v1/models").json()["data"]
    ids = [m["id"] for m in data]
    assert ids[: len(toklane.bundled_names())] == toklane.bundled_names()
    qwen = next(m for m in data if m["id"] == "qwen3.6")
    assert qwen["loaded"] and qwen["vocab_size"] == 248077 and "Qwen/Qwen3.6-27B" in qwen["aliases"]


def test_tokenize_detokenize_count(client):
    tok = toklane.load_tokenizer("qwen3.6")
    text = "Hello <think>世界</think> 🚀"
    r = client.post("/v1/tokenize", json={"text": text}).json()  # default model: the first preloaded
    assert r == {"tokens": tok.encode(text), "count": len(tok.encode(text))}
    llama = toklane.load_tokenizer("llama3")
    r = client.post(
        "/v1/tokenize", json={"model": "meta-llama/Llama-3.1-8B-Instruct", "text": "hi", "add_special_tokens": True}
    ).json()
    assert r["tokens"] == llama.encode("hi", add_special_tokens=True)
    r2 = client.post("/v1/detokenize", json={"model": "llama3", "tokens": r["tokens"], "skip_special_tokens": True})
    assert r2.json() == {"text": "hi"}
    assert client.post("/v1/count", json={"text": text}).json() == {"count": tok.count(text)}
    assert client.post("/v1/count", json={"texts": [text, "", "a b"]}).json() == {
        "counts": [tok.count(text), 0, tok.count("a b")]
    }


def test_messages(client):
    msgs = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    r = client.post("/v1/tokenize", json={"model": "llama3", "messages": msgs, "add_generation_prompt": True}).json()
    assert r["tokens"] == toklane.encode_chat(msgs, "llama3", add_generation_prompt=True)
    c = client.post("/v1/count", json={"model": "llama3", "messages": msgs, "add_generation_prompt": True}).json()
    assert c == {"count": r["count"]}
    # OpenAI encodings have no chat markers: counting works, token ids do not exist.
    assert client.post("/v1/count", json={"model": "gpt-4o", "messages": msgs}).json()["count"] > 0
    assert "no 'openai' chat markers" in _error(
        client.post("/v1/tokenize", json={"model": "gpt-4o", "messages": msgs}), 400
    )


def test_one_shared_tokenizer_per_model(client):
    app = client.app
    served = app.state.served
    assert served.get("qwen3.6") is toklane.load_tokenizer("qwen3.6") is served.get(None)
    assert served.get("Qwen/Qwen3.5-27B") is served.get("qwen3.6")


@pytest.mark.parametrize(
    "path, body, status, needle",
    [
        ("/v1/count", {"model": "no-such-model", "text": "x"}, 404, "known models: cl100k_base"),
        ("/v1/count", {}, 422, "give exactly one of text | texts | messages"),
        ("/v1/count", {"text": "a", "texts": ["b"]}, 422, "got text, texts"),
        ("/v1/count", {"text": 5}, 422, "text: Input should be a valid string"),
        ("/v1/count", {"text": "x", "bogus": 1}, 422, 'unknown field "bogus"; the fields are model, text'),
        ("/v1/detokenize", {"tokens": [1, 10**12]}, 400, "invalid token id 1000000000000"),
        ("/v1/detokenize", {"tokens": [-1]}, 400, "invalid token id -1"),
        ("/v1/detokenize", {"tokens": ["a"]}, 422, "tokens.0"),
        ("/v1/count", {"messages": [{"role": "wizard", "content": "x"}]}, 422, "role must be one of"),
        ("/tokenize", {"messages": [{"role": "wizard", "content": "x"}]}, 422, "role must be one of"),
        ("/v1/tokenize", {"model": "../../etc/passwd", "text": "x"}, 404, "not found"),
    ],
)
def test_bad_input_is_a_clear_4xx(client, path, body, status, needle):
    assert needle in _error(client.post(path, json=body), status)


def test_malformed_json_and_wrong_methods(client):
    message = _error(client.post("/v1/count", content=b"{oops", headers={"content-type": "application/json"}), 400)
    assert "malformed JSON" in message
    _error(client.get("/v1/count"), 405)
    _error(client.get("/v1/nothing-here"), 404)


@pytest.mark.parametrize(
    "content_type", [None, "text/plain", "application/x-www-form-urlencoded", "TEXT/PLAIN; charset=utf-8"]
)
def test_a_json_body_sent_as_form_or_text_is_read_as_json(client, content_type):
    """curl -d sends form encoding unless told otherwise: the JSON body is still read (large ones too)."""
    headers = {"content-type": content_type} if content_type else {}
    text = "Hello world " * (1 + 2_000 * (content_type == "text/plain"))  # over 16 KB: the threaded path
    body = json.dumps({"model": "qwen3.6", "text": text})
    assert client.post("/v1/count", content=body, headers=headers).json() == {"count": toklane.count_tokens(text)}
    message = _error(client.post("/v1/count", content="model=qwen3.6&text=hi", headers=headers), 400)
    assert "malformed JSON body" in message and "content-type: application/json" in message


@pytest.mark.parametrize("content_type", ["multipart/form-data; boundary=x", "application/xml", "image/png"])
def test_a_body_of_another_media_type_is_415_naming_the_header(client, content_type):
    body = json.dumps({"model": "qwen3.6", "text": "hi"})
    message = _error(client.post("/v1/count", content=body, headers={"content-type": content_type}), 415)
    assert content_type.split(";")[0] in message and "content-type: application/json" in message


def test_body_limit(client):
    assert "larger than the limit" in _error(client.post("/v1/count", json={"text": "x" * 70_000}), 413)

    def chunked():
        for _ in range(100):
            yield b"x" * 1000

    _error(client.post("/v1/count", content=chunked(), headers={"content-type": "application/json"}), 413)
    assert client.post("/v1/count", json={"text": "still fine"}).status_code == 200


def test_openapi_documents_every_endpoint(client):
    paths = client.get("/openapi.json").json()["paths"]
    for p in ("/health", "/v1/models", "/v1/tokenize", "/v1/detokenize", "/v1/count", "/v1/parse", "/v1/formats"):
        assert p in paths
    assert client.get("/docs").status_code == 200


def test_service_survives_a_bad_request_storm(client):
    for body in (b"", b"null", b"[]", b'{"text": null}', json.dumps({"texts": [1, 2]}).encode(), b"\xff\xfe"):
        r = client.post("/v1/count", content=body, headers={"content-type": "application/json"})
        assert 400 <= r.status_code < 500, (body, r.status_code, r.text)
    assert client.post("/v1/count", json={"text": "ok"}).json() == {"count": 1}


OUTPUT = (
    "<think>\nCheck the weather.\n</think>\n\nOn it.\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>'
)
FORMATS = {"reasoning": "qwen3", "tools": "hermes"}


def _strip_ids(result: dict) -> dict:
    for call in result["tool_calls"]:
        assert call.pop("id").startswith("call_") and call["type"] == "function"
    return result


def test_parse_text_ids_and_chunks_agree(client):
    tok = toklane.load_tokenizer("qwen3.6")
    expected = toklane.parse(tok, text=OUTPUT, **FORMATS)
    by_text = _strip_ids(client.post("/v1/parse", json={"text": OUTPUT, **FORMATS}).json())
    assert by_text == {
        "reasoning": expected.reasoning,
        "content": expected.content,
        "tool_calls": [
            {"type": "function", "function": {"name": "get_weather", "arguments": expected.tool_calls[0].arguments}}
        ],
    }
    ids = tok.encode(OUTPUT)
    assert _strip_ids(client.post("/v1/parse", json={"token_ids": ids, **FORMATS}).json()) == by_text
    chunks = [OUTPUT[i : i + 7] for i in range(0, len(OUTPUT), 7)]
    assert _strip_ids(client.post("/v1/parse", json={"chunks": chunks, **FORMATS}).json()) == by_text
    id_chunks = [ids[i : i + 3] for i in range(0, len(ids), 3)]
    assert _strip_ids(client.post("/v1/parse", json={"chunks": id_chunks, **FORMATS}).json()) == by_text


def test_parse_stream_is_openai_sse(client):
    chunks = [OUTPUT[i : i + 5] for i in range(0, len(OUTPUT), 5)]
    r = client.post("/v1/parse", json={"chunks": chunks, "stream": True, **FORMATS})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = [line[len("data: ") :] for line in r.text.split("\n\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    bodies = [json.loads(e) for e in events[:-1]]
    assert all(b["object"] == "chat.completion.chunk" and len(b["choices"]) == 1 for b in bodies)
    assert bodies[-1]["choices"][0]["finish_reason"] == "tool_calls"
    reasoning = "".join(b["choices"][0]["delta"].get("reasoning_content", "") for b in bodies)
    content = "".join(b["choices"][0]["delta"].get("content", "") for b in bodies)
    calls = [c for b in bodies for c in b["choices"][0]["delta"].get("tool_calls", [])]
    whole = client.post("/v1/parse", json={"text": OUTPUT, **FORMATS}).json()
    assert reasoning == whole["reasoning"] and content == whole["content"]
    first = calls[0]
    assert first["index"] == 0 and first["id"].startswith("call_") and first["function"]["name"] == "get_weather"
    assert all("id" not in c and "name" not in c["function"] for c in calls[1:])
    assert "".join(c["function"].get("arguments", "") for c in calls) == whole["tool_calls"][0]["function"]["arguments"]


def test_parse_errors(client):
    message = _error(client.post("/v1/parse", json={"text": "x", "tools": "nope"}), 400)
    assert "unknown" in message and "hermes" in message
    message = _error(client.post("/v1/parse", json={"text": "x", "reasoning": "nope"}), 400)
    assert "qwen3" in message
    _error(client.post("/v1/parse", json={"token_ids": [10**9], **FORMATS}), 400)
    _error(client.post("/v1/parse", json={"text": "x", "token_ids": [1]}), 422)
    # Bad model output is not a request error.
    r = client.post("/v1/parse", json={"text": '<tool_call>{"name": "f", "arguments": {"a": [1, 2', **FORMATS})
    assert r.status_code == 200 and r.json()["tool_calls"] == []


def test_formats_endpoint(client):
    formats = client.get("/v1/formats").json()
    assert formats == toklane.format_catalog()
    assert [r["name"] for r in formats["tools"]] == toklane.tool_formats()
    assert "hermes" in toklane.tool_formats() and "qwen3" in toklane.reasoning_formats()


def test_parse_stream_arguments_and_thinking_switches(client):
    chunks = [OUTPUT[i : i + 5] for i in range(0, len(OUTPUT), 5)]
    r = client.post("/v1/parse", json={"chunks": chunks, "stream": True, "stream_arguments": True, **FORMATS})
    bodies = [json.loads(line[6:]) for line in r.text.split("\n\n") if line.startswith("data: {")]
    fragments = [c for b in bodies for c in b["choices"][0]["delta"].get("tool_calls", [])]
    assert len(fragments) > 1  # arguments arrive in pieces
    whole = client.post("/v1/parse", json={"text": OUTPUT, **FORMATS}).json()
    assert "".join(c["function"]["arguments"] for c in fragments) == whole["tool_calls"][0]["function"]["arguments"]
    # thinking=false: the prompt already closed reasoning, so plain text is content.
    r = client.post("/v1/parse", json={"text": "plain answer", "reasoning": "deepseek_r1", "thinking": False})
    assert r.json()["content"] == "plain answer" and r.json()["reasoning"] is None


@pytest.mark.parametrize("chunks", [[], [[]], [""]])
def test_empty_chunks_are_an_empty_output_in_both_variants(client, chunks):
    """Issue 11 defect 2: ``{"chunks": []}`` was a 500 (IndexError) while streaming answered 200."""
    whole = client.post("/v1/parse", json={"chunks": chunks, **FORMATS})
    assert whole.status_code == 200 and whole.json() == {"reasoning": None, "content": None, "tool_calls": []}
    r = client.post("/v1/parse", json={"chunks": chunks, "stream": True, **FORMATS})
    assert r.status_code == 200
    bodies = [json.loads(e[6:]) for e in r.text.split("\n\n") if e.startswith("data: {")]
    assert [b["choices"][0]["delta"] for b in bodies] == [{}] and bodies[-1]["choices"][0]["finish_reason"] == "stop"
    assert r.text.endswith("data: [DONE]\n\n")


JSON = {"content-type": "application/json"}
LONE = "a\ud800b"  # what the JSON escape "a\ud800b" decodes to
SURROGATE_BODIES = [
    ("/v1/tokenize", {"text": LONE}, "text"),
    ("/v1/tokenize", {"messages": [{"role": "user", "content": LONE}]}, "messages.0.content"),
    ("/v1/count", {"text": LONE}, "text"),
    ("/v1/count", {"texts": ["ok", LONE]}, "texts.1"),
    ("/v1/count", {"messages": [{"role": "user", "content": [{"type": "text", "text": LONE}]}]}, "messages.0.content"),
    ("/v1/count", {"messages": [{"role": "tool", "content": "x", "tool_call_id": LONE}]}, "messages.0.tool_call_id"),
    ("/v1/count", {"text": "x", "model": LONE}, "model"),
    ("/v1/detokenize", {"tokens": [1], "model": LONE}, "model"),
    ("/v1/parse", {"text": LONE}, "text"),
    ("/v1/parse", {"chunks": ["ok", LONE]}, "chunks.1"),
    ("/v1/parse", {"chunks": ["ok", LONE], "stream": True}, "chunks.1"),
    ("/v1/parse", {"text": "x", "stream": True, "tools": LONE}, "tools"),
    (
        "/v1/parse",
        {"text": "x", "tools_schema": [{"type": "function", "function": {"name": "f", "description": LONE}}]},
        "tools_schema.0.function.description",
    ),
    ("/v1/count", {"text": "x", "\udc00": 1}, "key"),
]


@pytest.mark.parametrize("path, body, field", SURROGATE_BODIES)
def test_lone_surrogates_are_422_naming_the_field_on_every_endpoint(client, path, body, field):
    """Issue 11 defect 3: one rule for every endpoint, applied before any response starts (a
    streamed parse used to send 200 and then break; /v1/tokenize took them as U+FFFD)."""
    raw = json.dumps(body).encode()  # ensure_ascii: lone surrogates travel as \\ud800 escapes
    r = client.post(path, content=raw, headers={"content-type": "application/json"})
    message = _error(r, 422)
    assert "surrogate" in message and field in message
    assert r.headers["content-type"] == "application/json"


def test_surrogate_pairs_are_fine(client):
    text = "rocket \U0001f680"
    raw = json.dumps({"text": text}).encode()  # "\\ud83d\\ude80": a pair, not lone surrogates
    assert client.post("/v1/count", content=raw, headers=JSON).status_code == 200
    r = client.post("/v1/parse", content=json.dumps({"chunks": [text], "stream": True}).encode(), headers=JSON)
    assert r.status_code == 200 and text in "".join(
        json.loads(e[6:])["choices"][0]["delta"].get("content", "") for e in r.text.split("\n\n") if e[6:7] == "{"
    )


@pytest.mark.parametrize(
    "path, body, field",
    [
        (
            "/v1/count",
            {"model": "o200k_harmony", "messages": [{"role": "tool", "content": "x", "tool_call_id": {"a": 1}}]},
            "messages.0.tool_call_id",
        ),
        (
            "/v1/count",
            {"messages": [{"role": "assistant", "tool_calls": [{"id": {"x": 1}, "function": {"name": "f"}}]}]},
            "messages.0.tool_calls.0.id",
        ),
        ("/v1/count", {"messages": [{"role": "user", "content": 5}]}, "messages.0.content"),
        ("/v1/count", {"messages": [{"role": "user", "name": ["x"]}]}, "messages.0.name"),
        (
            "/v1/parse",
            {
                "text": "x",
                "tools": "hermes",
                "tools_schema": [
                    {"type": "function", "function": {"name": "f", "parameters": {"properties": {"a": {"anyOf": 5}}}}}
                ],
            },
            "tools_schema[0].function.parameters.properties.a.anyOf",
        ),
        ("/v1/parse", {"text": "x", "tools_schema": [{"type": "function", "function": {"name": 3}}]}, "name"),
        ("/v1/parse", {"text": "x", "tools_schema": [5]}, "tools_schema.0"),
        ("/v1/parse", {"text": "x", "tools_schema": [{"name": "f", "parameters": {"type": 5}}]}, "parameters.type"),
    ],
)
def test_message_and_schema_fields_are_typed(client, path, body, field):
    """Issue 11 defect 8 (HTTP): a dict tool_call_id on o200k_harmony was "unhashable type: 'dict'",
    ``{"anyOf": 5}`` was "'int' object is not iterable"; now 422 naming the field."""
    assert field in _error(client.post(path, json=body), 422)


def test_typed_messages_keep_what_clients_send(client):
    """OpenAI message extras and tool calls still count as before (the library sees what was sent)."""
    msgs = [
        {"role": "user", "content": "weather?", "refusal": None},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "w", "arguments": {"city": "P"}}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ]
    for model in ("o200k_harmony", "qwen3.6", "llama3"):
        r = client.post("/v1/count", json={"model": model, "messages": msgs})
        assert r.json() == {"count": toklane.count_tokens(msgs, model=model)}


def test_openapi_documents_every_error_answer(client):
    spec = client.get("/openapi.json").json()
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            for status in ("400", "404", "408", "413", "422", "503"):
                assert status in op["responses"], (path, method, status)
            schema = op["responses"]["422"]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/ErrorResponse"}, (path, method)


@pytest.mark.parametrize("bad", [10**9, 100256])  # out of range; a hole of cl100k_base's id space
def test_bad_ids_in_a_late_chunk_fail_before_the_stream_starts(client, bad):
    chunks = [[1]] * 3000 + [[bad]]
    r = client.post("/v1/parse", json={"model": "cl100k_base", "chunks": chunks, "stream": True})
    assert f"invalid token id {bad}" in _error(r, 400)


def test_tools_schema_takes_what_the_library_takes(client):
    """Wrapped OpenAI entries and bare ``{name, parameters}`` entries both type a qwen3_coder value."""
    params = {"type": "object", "properties": {"n": {"type": "integer"}}}
    text = "<tool_call>\n<function=f>\n<parameter=n>\n7\n</parameter>\n</function>\n</tool_call>"
    for tool in (
        {"type": "function", "function": {"name": "f", "parameters": params}},
        {"name": "f", "parameters": params},
    ):
        r = client.post("/v1/parse", json={"text": text, "tools": "qwen3_coder", "tools_schema": [tool]})
        assert r.status_code == 200, r.text
        assert json.loads(r.json()["tool_calls"][0]["function"]["arguments"]) == {"n": 7}
