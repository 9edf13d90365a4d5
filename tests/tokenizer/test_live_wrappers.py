"""A wrapped live tokenizer never goes stale: after tokens are added, load_tokenizer(obj) wraps it again.

Real objects over DeepSeek-V4's tokenizer.json cut to 2,000 merges (its pipeline and added tokens kept:
tests/tokenizer/pipelines.py's deepseek_small, a load in milliseconds where the whole file takes over a
second; transformers fast tokenizer and tokenizers.Tokenizer), real add_tokens / add_special_tokens,
ids compared with HF's own.
"""

from __future__ import annotations

import gc
import weakref

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane.tokenizer import registry

transformers = pytest.importorskip("transformers")


def _transformers(path):
    return transformers.PreTrainedTokenizerFast(tokenizer_file=str(path))


def _tokenizers(path):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(path))


def _hf_ids(obj, text):
    if isinstance(obj, transformers.PreTrainedTokenizerBase):
        return obj.encode(text, add_special_tokens=False)
    return obj.encode(text, add_special_tokens=False).ids


def _add(obj, tokens, special):
    if isinstance(obj, transformers.PreTrainedTokenizerBase):
        if special:
            return obj.add_special_tokens({"additional_special_tokens": tokens})
        return obj.add_tokens(tokens)
    return obj.add_special_tokens(tokens) if special else obj.add_tokens(tokens)


KINDS = {"transformers": _transformers, "tokenizers": _tokenizers}


@pytest.fixture(scope="module", params=sorted(KINDS))
def live(request, deepseek_small_json):
    """One object per kind, shared by the examples: tokens pile up, the invariant holds at every step."""
    return KINDS[request.param](deepseek_small_json)


@pytest.mark.parametrize("special", [False, True])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_added_tokens_are_seen_and_ids_equal_hf(kind, special, deepseek_small_json):
    obj = KINDS[kind](deepseek_small_json)
    before = toklane.load_tokenizer(obj)
    assert toklane.load_tokenizer(obj) is before
    new = ["<my_tool>", "zqxjv_marker"]
    assert _add(obj, new, special) == 2
    after = toklane.load_tokenizer(obj)
    assert after is not before, "returned the wrapper made before the tokens were added"
    text = "call <my_tool> now, zqxjv_marker; and a plain sentence"
    assert after.encode(text) == _hf_ids(obj, text)
    assert after.token_to_id("<my_tool>") == (obj.convert_tokens_to_ids if kind == "transformers" else obj.token_to_id)(
        "<my_tool>"
    )
    assert after.vocab_size == before.vocab_size + 2
    assert toklane.load_tokenizer(obj) is after  # stable again once rewrapped
    assert before.encode(text) != after.encode(text)  # the old snapshot is unchanged, not mutated


@settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    tokens=st.lists(
        st.text(alphabet="abcxyz_<>|/ 0123é世", min_size=1, max_size=8).filter(lambda t: t.strip()),
        min_size=1,
        max_size=3,
        unique=True,
    ),
    special=st.booleans(),
    filler=st.text(alphabet="ab <>xyz_é世 ", max_size=12),
)
def test_any_added_tokens_ids_equal_hf(live, tokens, special, filler):
    """Whatever new tokens were added, the wrapper load_tokenizer returns now encodes like HF does now.
    (Strings that are tokens already add no id: see test_readding_a_known_string_needs_refresh.)"""
    backend = getattr(live, "backend_tokenizer", live)
    assume(all(backend.token_to_id(t) is None for t in tokens))
    _add(live, tokens, special)
    tok = toklane.load_tokenizer(live)
    text = filler.join(tokens) + filler
    assert tok.encode(text) == _hf_ids(live, text), (tokens, special, filler)
    assert toklane.load_tokenizer(live) is tok


def test_readding_a_known_string_needs_refresh(deepseek_small_json):
    """Adding a string that is already a token adds no id: not visible in O(1); refresh=True rewraps."""
    obj = _tokenizers(deepseek_small_json)
    tok = toklane.load_tokenizer(obj)
    assert obj.token_to_id("the") is not None
    obj.add_tokens(["the"])  # now split out of " the" before BPE: different ids
    text = " the world"
    fresh = toklane.load_tokenizer(obj, refresh=True)
    assert fresh is not tok
    assert fresh.encode(text) == _hf_ids(obj, text) != tok.encode(text)
    assert toklane.load_tokenizer(obj) is fresh


def test_new_backend_of_a_transformers_tokenizer_is_seen(deepseek_small_json):
    obj = _transformers(deepseek_small_json)
    tok = toklane.load_tokenizer(obj)
    other = _tokenizers(deepseek_small_json)
    other.add_tokens(["<swapped>"])
    obj._tokenizer = other  # what transformers' own code does when it rebuilds the backend
    again = toklane.load_tokenizer(obj)
    assert again is not tok and again.encode("a <swapped>") == _hf_ids(obj, "a <swapped>")


def test_rewrapped_objects_are_still_held_weakly(deepseek_small_json):
    gc.collect()  # (objects earlier tests left to the cycle collector leave the count first)
    before = registry.cache_info()["objects"]
    obj = _transformers(deepseek_small_json)
    first = toklane.load_tokenizer(obj)
    obj.add_tokens(["<grown>"])
    second = toklane.load_tokenizer(obj)
    assert second is not first and registry.cache_info()["objects"] == before + 1
    refs = [weakref.ref(x) for x in (obj, first, second)]
    del obj, first, second
    gc.collect()
    assert all(r() is None for r in refs)
    assert registry.cache_info()["objects"] == before


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("first_special, second_special", [(True, False), (False, True), (True, True), (False, False)])
def test_a_special_token_inside_a_later_plain_one_is_matched_first(
    kind, first_special, second_special, deepseek_small_json
):
    """HF matches the tokens added as special (not normalized) before the plain ones: ``世`` added as
    special, then ``世a`` as plain text, reads ``世abé`` as ``世`` + ``ab`` + ``é``. (The CI run that
    found it: test_any_added_tokens_ids_equal_hf, whose live object had gathered both.)"""
    obj = KINDS[kind](deepseek_small_json)
    _add(obj, ["世"], first_special)
    _add(obj, ["世a"], second_special)
    tok = toklane.load_tokenizer(obj)
    for text in ("世abé", "x世a世", "世世a", "a世ab 世a"):
        assert tok.encode(text) == _hf_ids(obj, text), (text, tok.engine_reason)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_plain_token_running_into_a_special_one_gives_way(kind, deepseek_small_json):
    """``qqzz`` added as plain text, ``zzww`` as special: HF reads ``qqzzww`` as ``qq`` + ``zzww``."""
    obj = KINDS[kind](deepseek_small_json)
    _add(obj, ["zzww"], True)
    _add(obj, ["qqzz"], False)
    tok = toklane.load_tokenizer(obj)
    for text in ("qqzzww", "qqzz ww", "a qqzzwwqqzz"):
        assert tok.encode(text) == _hf_ids(obj, text), (text, tok.engine_reason)


def test_the_bundled_deepseek_file_has_no_order_conflict(deepseek_json):
    """Its added tokens mix normalized and not, but no two of them meet: it stays on the compiled engine."""
    import json

    from toklane.tokenizer.engines.choose import added_order_conflict

    added = json.loads(deepseek_json.read_text(encoding="utf-8"))["added_tokens"]
    assert len({bool(t.get("normalized")) for t in added}) == 2
    assert added_order_conflict(added) is None
    holds_bos = {"content": "x<｜begin▁of▁sentence｜>", "id": 10**6, "normalized": True}
    assert added_order_conflict([*added, holds_bos]) is not None
