"""``/openapi.json`` documents the errors the service really sends: ``{"error": {"type", "message"}}``
for every status code of every route, never FastAPI's ``{"detail": [...]}`` (issue 13, item 8).

The schema is read from the app's own ``/openapi.json``; real error answers of the app are validated
against it, and a bounded schemathesis run checks every answer (status code, content type, body) to
generated requests against the schema.
"""

from __future__ import annotations

import jsonschema
import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.profiles import examples
from toklane.server import create_app

# Every status the service (app and toklane's HTTP protocol) answers with an error body.
ERROR_STATUSES = {"400", "404", "405", "408", "413", "422", "431", "500", "503"}
ERROR_REF = "#/components/schemas/ErrorResponse"
EXAMPLES = examples(25)

app = create_app(["qwen3.6"], max_body_bytes=64 * 1024, max_chunks=64)


@pytest.fixture(scope="module")
def client():
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def spec(client):
    r = client.get("/openapi.json")
    assert r.status_code == 200
    return r.json()


def _operations(spec):
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            yield path, method, op


def test_every_documented_error_is_our_error_shape(spec):
    assert {"/tokenize", "/detokenize", "/v1/models/{model_id}", "/v1/tokenize"} <= set(spec["paths"])
    for path, method, op in _operations(spec):
        responses = op["responses"]
        assert set(responses) >= ERROR_STATUSES, (path, method, sorted(responses))
        for status, response in responses.items():
            if int(status) < 400:
                continue
            content = response.get("content", {})
            assert list(content) == ["application/json"], (path, method, status, content)
            assert content["application/json"]["schema"] == {"$ref": ERROR_REF}, (path, method, status)
    schemas = spec["components"]["schemas"]
    assert "HTTPValidationError" not in schemas and "ValidationError" not in schemas
    error = schemas["ErrorResponse"]
    assert error["required"] == ["error"] and "detail" not in error["properties"]
    assert set(schemas["ErrorBody"]["required"]) == {"type", "message"}


def _validate(spec, path, method, response):
    """``response``'s body against the schema ``spec`` documents for its status on ``path``."""
    documented = spec["paths"][path][method]["responses"][str(response.status_code)]
    schema = documented["content"]["application/json"]["schema"]
    assert schema == {"$ref": ERROR_REF}  # (FastAPI's HTTPValidationError has no required key: anything fits it)
    jsonschema.validate(response.json(), {**schema, "components": spec["components"]})


@pytest.mark.parametrize(
    ("path", "method", "kwargs", "status"),
    [
        ("/v1/tokenize", "post", {"json": {"prompt": "hi"}}, 422),
        ("/v1/tokenize", "post", {"content": b"{not json", "headers": {"content-type": "application/json"}}, 400),
        ("/v1/count", "post", {"json": {"model": "gpt4o", "text": "hi"}}, 404),
        ("/v1/count", "get", {}, 405),
        ("/v1/count", "post", {"json": {"text": "x" * 70_000}}, 413),
        ("/v1/parse", "post", {"json": {"text": "x", "tools": "no-such-format"}}, 400),
        ("/tokenize", "post", {"json": {"text": "hi"}}, 422),
        ("/detokenize", "post", {"json": {"tokens": [10**9]}}, 400),
        ("/v1/models/{model_id}", "get", {}, 404),
    ],
)
def test_errors_sent_match_the_documented_schema(client, spec, path, method, kwargs, status):
    url = path.replace("{model_id}", "no-such-model")
    response = client.request(method.upper(), url, **kwargs)
    assert response.status_code == status, response.text
    assert set(response.json()) == {"error"}
    documented = method if method in spec["paths"][path] else next(iter(spec["paths"][path]))  # 405: the route's
    _validate(spec, path, documented, response)


schema = schemathesis.openapi.from_asgi("/openapi.json", app)
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
    max_examples=EXAMPLES,
    no_shrink=True,
    deterministic=True,
    database="none",
)


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck))
def test_every_answer_conforms_to_the_schema(case):
    case.call_and_validate(
        checks=[not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
    )
