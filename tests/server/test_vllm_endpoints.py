"""vLLM's tokenizer dialect beside ours (``POST /tokenize``, ``/detokenize``, ``GET /v1/models/{id}``) and
422s for near-miss field names that name the right field, against the app in-process."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

import toklane
from tests.server.live import error_message as _error
from toklane.server import create_app


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(["qwen3.6", "llama3"]), raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        ("/v1/tokenize", {"prompt": "hi"}, 'unknown field "prompt"; did you mean "text"?'),
        ("/v1/detokenize", {"token_ids": [1]}, 'unknown field "token_ids"; did you mean "tokens"?'),
        ("/v1/parse", {"output": "hi", "tool": "hermes"}, 'unknown field "tool"; did you mean "tools"?'),
        (
            "/v1/count",
            {"text": "a", "add_generation_promt": True},
            'unknown field "add_generation_promt"; did you mean "add_generation_prompt"?',
        ),
        ("/v1/count", {"text": "a", "frobnicate": 1}, "the fields are model, text, texts, messages"),
    ],
)
def test_near_miss_field_names_the_right_field(client, path, body, message):
    assert message in _error(client.post(path, json=body), 422)


MSGS = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]


def test_vllm_tokenize_prompt_adds_special_tokens_by_default(client):
    llama = toklane.load_tokenizer("llama3")
    r = client.post("/tokenize", json={"model": "llama3", "prompt": "Hello world"})
    assert r.status_code == 200, r.text
    ids = llama.encode("Hello world", add_special_tokens=True)
    assert ids[0] == llama.token_to_id("<|begin_of_text|>")
    assert r.json() == {"count": len(ids), "max_model_len": None, "tokens": ids, "token_strs": None}
    r = client.post("/tokenize", json={"model": "llama3", "prompt": "Hello world", "add_special_tokens": False})
    assert r.json()["tokens"] == llama.encode("Hello world")


def test_vllm_tokenize_token_strs(client):
    qwen = toklane.load_tokenizer("qwen3.6")
    r = client.post("/tokenize", json={"prompt": "Hello <think> world", "return_token_strs": True}).json()
    assert r["tokens"] == qwen.encode("Hello <think> world", add_special_tokens=True)
    assert r["token_strs"] == [qwen.id_to_token(i) for i in r["tokens"]]
    assert "<think>" in r["token_strs"] and "Ġworld" in r["token_strs"]  # vocabulary (byte-level) spellings


def test_vllm_tokenize_messages_render_as_ours(client):
    # vLLM's chat defaults: add_generation_prompt true, add_special_tokens false.
    ours = client.post("/v1/tokenize", json={"model": "llama3", "messages": MSGS, "add_generation_prompt": True})
    vllm = client.post("/tokenize", json={"model": "llama3", "messages": MSGS}).json()
    assert vllm["tokens"] == ours.json()["tokens"] == toklane.encode_chat(MSGS, "llama3", add_generation_prompt=True)
    assert vllm["count"] == len(vllm["tokens"])
    no_gen = client.post("/tokenize", json={"model": "llama3", "messages": MSGS, "add_generation_prompt": False})
    assert no_gen.json()["tokens"] == toklane.encode_chat(MSGS, "llama3")


def test_vllm_tokenize_continue_final_message(client):
    llama = toklane.load_tokenizer("llama3")
    prefill = [*MSGS, {"role": "assistant", "content": "Sure, here"}]
    r = client.post("/tokenize", json={"model": "llama3", "messages": prefill, "continue_final_message": True})
    assert r.status_code == 200, r.text
    # The assistant turn is left open after its text: the generation prompt, then the prefilled text.
    expected = toklane.encode_chat(MSGS, "llama3", add_generation_prompt=True) + llama.encode("Sure, here")
    assert r.json()["tokens"] == expected
    both = {"model": "llama3", "messages": prefill, "continue_final_message": True, "add_generation_prompt": True}
    assert "set add_generation_prompt to false" in _error(client.post("/tokenize", json=both), 422)


def test_vllm_detokenize(client):
    llama = toklane.load_tokenizer("llama3")
    ids = llama.encode("Hello <|eot_id|> wörld", add_special_tokens=True)
    r = client.post("/detokenize", json={"model": "llama3", "tokens": ids})
    assert r.status_code == 200, r.text
    assert r.json() == {"prompt": "<|begin_of_text|>Hello <|eot_id|> wörld"}
    assert "tokens.0: Input should be greater than or equal to 0" in _error(
        client.post("/detokenize", json={"tokens": [-1]}), 422
    )
    assert "invalid token id 1000000000" in _error(client.post("/detokenize", json={"tokens": [10**9]}), 400)


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        ("/tokenize", {"text": "hi"}, 'unknown field "text"; did you mean "prompt"?'),
        ("/tokenize", {"prompt": "hi", "messages": MSGS}, "give exactly one of prompt | messages"),
        ("/tokenize", {"prompt": "hi", "chat_template": "{{ x }}"}, "chat_template: applies to messages only"),
        ("/tokenize", {"prompt": "hi", "continue_final_message": True}, "applies to messages only"),
        ("/detokenize", {"token_ids": [1]}, 'unknown field "token_ids"; did you mean "tokens"?'),
    ],
)
def test_vllm_bad_requests_name_the_fix(client, path, body, message):
    assert message in _error(client.post(path, json=body), 422)


def test_vllm_empty_optional_fields_are_accepted(client):
    # vLLM clients send these as null/{}/[]; they change nothing here.
    body = {"prompt": "hi", "chat_template": None, "chat_template_kwargs": {}, "tools": [], "mm_processor_kwargs": None}
    assert client.post("/tokenize", json=body).status_code == 200


def test_vllm_field_names_and_defaults_match_vllm(client):
    protocol = pytest.importorskip("vllm.entrypoints.serve.tokenize.protocol")
    from toklane.server import vllm_compat

    ours = vllm_compat.VllmTokenizeRequest.model_fields
    theirs = {**protocol.TokenizeCompletionRequest.model_fields, **protocol.TokenizeChatRequest.model_fields}
    assert set(theirs) <= set(ours)
    assert set(vllm_compat.VllmDetokenizeRequest.model_fields) == set(protocol.DetokenizeRequest.model_fields)
    r = client.post("/tokenize", json={"prompt": "hi", "return_token_strs": True}).json()
    assert list(r) == list(protocol.TokenizeResponse.model_fields)
    assert list(client.post("/detokenize", json={"tokens": [1]}).json()) == list(
        protocol.DetokenizeResponse.model_fields
    )
    # Requests a vLLM client builds with vLLM's own models are answered as vLLM's defaults say.
    req = protocol.TokenizeChatRequest(model="llama3", messages=MSGS).model_dump(exclude_none=True)
    assert client.post("/tokenize", json=req).json()["tokens"] == toklane.encode_chat(
        MSGS, "llama3", add_generation_prompt=True
    )
    req = protocol.TokenizeCompletionRequest(model="llama3", prompt="hi").model_dump(exclude_none=True)
    assert client.post("/tokenize", json=req).json()["tokens"] == toklane.load_tokenizer("llama3").encode(
        "hi", add_special_tokens=True
    )


def test_model_by_id(client):
    r = client.get("/v1/models/Qwen/Qwen3.6-27B")  # an alias with a slash
    assert r.status_code == 200, r.text
    card = r.json()
    assert card["id"] == "qwen3.6" and card["object"] == "model" and isinstance(card["created"], int)
    assert card["owned_by"] == "toklane" and card["loaded"] and card["vocab_size"] == 248077
    assert client.get("/v1/models/llama3").json()["id"] == "llama3"
    assert client.get("/v1/models/gpt-4o").json()["id"] == "o200k_base"
    message = _error(client.get("/v1/models/gpt4o"), 404)
    assert message.startswith("model 'gpt4o' not found; did you mean 'gpt-4o'")
    assert "known models: cl100k_base, deepseek-v4" in message
    assert "did you mean" not in _error(client.get("/v1/models/zzzzzz"), 404)


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather in a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]


def test_vllm_tokenize_messages_with_tools(client):
    r = client.post("/tokenize", json={"messages": MSGS, "tools": TOOLS})
    assert r.status_code == 200, r.text
    expected = toklane.encode_chat(MSGS, "qwen3.6", add_generation_prompt=True, tools=TOOLS)
    assert r.json()["tokens"] == expected
    assert len(expected) > len(toklane.encode_chat(MSGS, "qwen3.6", add_generation_prompt=True)) + 20
    count = client.post("/v1/count", json={"messages": MSGS, "tools": TOOLS, "add_generation_prompt": True})
    assert count.json() == {"count": len(expected)}
    assert "tools: applies to messages only" in _error(
        client.post("/tokenize", json={"prompt": "x", "tools": TOOLS}), 422
    )
