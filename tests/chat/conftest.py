"""The chat tests keep the transformers tokenizers they build in pytest's cache folder."""

from __future__ import annotations

import pytest

from . import helpers


@pytest.fixture(scope="session", autouse=True)
def chat_cache(request: pytest.FixtureRequest) -> None:
    cache = getattr(request.config, "cache", None)
    if cache is not None:
        helpers.use_cache_dir(cache.mkdir("toklane-chat"))
