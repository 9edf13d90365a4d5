"""The engine tests: vLLM on CPU whichever module imports it first; the serving-layer tests keep the
model folders and tokenizers they build in pytest's cache folder."""

from __future__ import annotations

import os

import pytest

# vLLM settles its platform on first import, and SGLang's serving code imports vLLM modules: without
# this, a session where SGLang's tests run first leaves vLLM unable to infer a device.
os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")


@pytest.fixture(scope="session", autouse=True)
def serving_models_cache(request: pytest.FixtureRequest) -> None:
    """Built once, loaded by later runs (``tests/integrations/serving_models.py``); a temporary folder
    where pytest's cache is off (``-p no:cacheprovider``)."""
    from . import serving_models

    cache = getattr(request.config, "cache", None)
    if cache is not None:
        serving_models.use_cache_dir(cache.mkdir("toklane-serving-models"))
