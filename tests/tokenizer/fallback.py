"""The bundled tokenizers as they load where ``toklane._bpe`` is not built: on quicktok's engines
(:class:`~toklane.tokenizer.engines.quickranks.CheckedEngine`), which tests of that fallback read."""

from __future__ import annotations

from contextlib import ExitStack
from unittest import mock

from toklane.tokenizer import Tokenizer, user_files
from toklane.tokenizer.bundled_loaders import load_bundled
from toklane.tokenizer.engines import choose
from toklane.tokenizer.registry import bundled_table

_loaded: dict[str, Tokenizer] = {}


def without_compiled(name: str) -> Tokenizer:
    """The bundled tokenizer ``name`` loaded as if the compiled encoder did not handle its pattern."""
    if name not in _loaded:
        entry = next(entry for entry in bundled_table() if entry.name == name)
        with ExitStack() as patched:  # (each module that asks)
            for module in (choose, user_files):
                patched.enter_context(mock.patch.object(module, "compiled_handles", lambda pattern: False))
            _loaded[name] = load_bundled(entry, ())
    return _loaded[name]
