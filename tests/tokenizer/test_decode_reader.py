"""decode() through the compiled id reader (toklane.gather) equals the backend's own decode, on every
bundled tokenizer (all ranked-BPE: decoding is joining token bytes), for any ids: ordinary tokens, byte fragments
that split characters, added tokens special or not, with and without skip_special_tokens."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane import gather
from toklane.tokenizer import core
from toklane.tokenizer.bundled import BUNDLED
from toklane.tokenizer.engines.ranked import RankedBPEBackend

NAMES = [b.name for b in BUNDLED]

pytestmark = pytest.mark.skipif(not gather.NATIVE, reason="toklane._gather is not built here")


def _ready(name: str) -> toklane.Tokenizer:
    if name == "mistral-tekken":
        pytest.importorskip("mistral_common")
    tok = toklane.load_tokenizer(name)
    tok.token_bytes_table  # noqa: B018  # (built: decode uses the reader from its first long call)
    return tok


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=examples(40), deadline=None)
@given(data=st.data())
def test_decode_equals_the_backend(name: str, data: st.DataObject) -> None:
    tok = _ready(name)
    table = tok.token_bytes_table
    rnd = random.Random(data.draw(st.integers(0, 2**32)))
    added = [t.id for t in tok.added_tokens]
    fragments = tok.encode("é日🙂ж")
    size = data.draw(st.integers(core._DECODE_BULK, 300))
    ids = []
    while len(ids) < size:
        roll = rnd.random()
        if roll < 0.1 and added:
            ids.append(rnd.choice(added))
        elif roll < 0.2:
            ids.append(rnd.choice(fragments))
        else:
            t = rnd.randrange(tok.vocab_size)
            if table[t] is not None:
                ids.append(t)
    for skip in (False, True):
        want = tok._backend.decode(ids, skip)
        assert tok.decode(ids, skip) == want
        assert tok.decode(tuple(ids), skip) == want
        assert tok.decode(np.array(ids), "yes" if skip else 0) == want  # (any truthy flag, arrays too)
        # (the ranked backend itself, or the one that decodes for fastokens once it took over)
        uses_reader = isinstance(core._decoding_backend(tok._backend), RankedBPEBackend)
        assert isinstance(tok._decode_readers[skip], gather.IdTable) == uses_reader


@pytest.mark.parametrize("name", ["qwen3.6", "cl100k_base"])
def test_bad_ids_raise_as_before(name: str) -> None:
    tok = _ready(name)
    ids = tok.encode("plain words " * 10)
    holes = [i for i, b in enumerate(tok.token_bytes_table) if b is None][:1]
    for bad in (-1, -2, tok.vocab_size, 2**40, 1.5, "7", *holes):
        with pytest.raises(toklane.InvalidTokenIdError):
            tok.decode([*ids, bad])
    assert tok.decode([*ids[:20], True]) == tok.decode([*ids[:20], 1])  # (an int subclass, read as its value)


def test_the_reader_waits_until_it_pays_for_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the vocabulary's byte table unbuilt, decode reads through the backend until it has read
    _DECODE_AMORTIZE ids per vocabulary entry, then builds the reader; built already (by a parser,
    the detokenizer), at once."""
    tok = toklane.load_tokenizer("qwen3.6")
    ids = tok.encode("plain words " * 10)
    monkeypatch.setattr(core, "_DECODE_AMORTIZE", 3 * len(ids) / len(tok))
    monkeypatch.setattr(tok, "_tables", None)
    monkeypatch.setattr(tok, "_decode_readers", [None, None])
    monkeypatch.setattr(tok, "_decoded", 0)
    text = tok.decode(ids)
    for _ in range(2):
        assert tok.decode(ids) == text
        assert tok._decode_readers[False] is None
    assert tok.decode(ids) == text
    assert isinstance(tok._decode_readers[False], gather.IdTable)
