"""The serving-layer tests keep the model folders and tokenizers they build in pytest's cache folder."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def serving_models_cache(request: pytest.FixtureRequest) -> None:
    """Built once, loaded by later runs (``tests/integrations/serving_models.py``); a temporary folder
    where pytest's cache is off (``-p no:cacheprovider``)."""
    from . import serving_models

    cache = getattr(request.config, "cache", None)
    if cache is not None:
        serving_models.use_cache_dir(cache.mkdir("toklane-serving-models"))
