"""Schemathesis over the service's own OpenAPI schema: valid and invalid requests to every
endpoint never get a 5xx, and every 4xx is our error shape ``{"error": {"type", "message"}}``.

Bounded (a few dozen examples per endpoint and mode, no shrinking, deterministic) so it runs in
well under a minute on two cores; run it longer with ``TOKLANE_FUZZ_EXAMPLES=2000``.
"""

from __future__ import annotations

import os

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode

from toklane.server import create_app

EXAMPLES = int(os.environ.get("TOKLANE_FUZZ_EXAMPLES", "40"))

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
