"""Each load builds exactly one engine (issue 34): the engine the chooser plans, and no reference beside
it -- tiktoken behind the compiled encoder is built on first need, not at load. Two named exceptions:
quicktok's vocabularies are read through quicktok's own tokenizer (its data files have no published
format) until their ranks are in the disk cache; a .model file's sentencepiece library is built beside
its compiled merges, as the file's last check (its own parse refuses mutated files toklane's reader
accepts) and its decoder."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from toklane.tokenizer.bundled import BUNDLED, QuicktokVocabulary, SentencePieceFile
from toklane.tokenizer.bundled_loaders import load_bundled
from toklane.tokenizer.engines import compiled
from toklane.tokenizer.engines.tiktoken import TiktokenEngine

TEXT = "A first text, encoded: 123 ünïcode"


def _builders() -> list[tuple[Any, str, str]]:
    """(owner, attribute, kind) of every call that builds an engine."""
    found: list[tuple[Any, str, str]] = [(TiktokenEngine, "build", "tiktoken")]
    if compiled.NATIVE:
        found += [(compiled._bpe, name, "compiled encoder") for name in ("build", "build_packed", "build_mapped")]
    for module, owner, name in (
        ("sentencepiece", "SentencePieceProcessor", "__init__"),
        ("quicktok", None, "Tokenizer"),
        ("tokenizers", "Tokenizer", "from_str"),
    ):
        imported = pytest.importorskip(module)
        found.append((getattr(imported, owner) if owner else imported, name, module))
    return found


def _builds(row: Any, monkeypatch: pytest.MonkeyPatch) -> Counter:
    """The engines a load of ``row`` and a first encode build, by kind (decoding checked after)."""
    counts: Counter = Counter()
    with monkeypatch.context() as patched:
        for owner, name, kind in _builders():
            original = getattr(owner, name)

            def counting(*args: Any, _original: Any = original, _kind: str = kind, **kwargs: Any) -> Any:
                counts[_kind] += 1
                return _original(*args, **kwargs)

            patched.setattr(owner, name, counting)
        tok = load_bundled(row, ())
        ids = tok.encode(TEXT)
        built = Counter(counts)
    assert tok.engine == row.engine
    assert tok.decode(ids) == TEXT  # (what a reference is for still works, built then where it is needed)
    return built


@pytest.mark.parametrize("row", BUNDLED, ids=lambda row: row.name)
def test_a_bundled_load_builds_one_engine(row: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    if row.extra:
        pytest.importorskip("mistral_common")
    monkeypatch.setenv("TOKLANE_CACHE_DIR", str(tmp_path))
    first = _builds(row, monkeypatch)  # (the cache empty: the data read from its package)
    if isinstance(row.source, QuicktokVocabulary):
        assert first.pop("quicktok") == 1, first
    if isinstance(row.source, SentencePieceFile):
        assert first.pop("sentencepiece") == 1, first
    assert sum(first.values()) == 1, first
    for _ in range(2):  # (the cache holds the data's image, then the encoder's too)
        built = _builds(row, monkeypatch)
        if isinstance(row.source, SentencePieceFile):
            assert built.pop("sentencepiece") == 1, built
        assert sum(built.values()) == 1, built
        if row.engine == "compiled":
            assert built == {"compiled encoder": 1}
