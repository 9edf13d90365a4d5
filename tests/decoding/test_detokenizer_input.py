"""IncrementalDetokenizer.step on anything: ids are accepted in every integer form, and
everything else is an InvalidTokenIdError naming the value, with the stream unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples

TOK = "qwen3"


@pytest.fixture(scope="module")
def tok() -> toklane.Tokenizer:
    return toklane.load_tokenizer(TOK)


def _detok(tok: toklane.Tokenizer) -> toklane.IncrementalDetokenizer:
    return toklane.IncrementalDetokenizer(tok)


@pytest.mark.parametrize(
    "bad",
    [
        5.0,
        None,
        True,
        False,
        -1,
        10**30,
        "x",
        "12",
        b"\x01\x02",
        {1: 2},
        {1, 2},
        object(),
        [1, [2]],
        [1, None],
        [2.0],
        [True],
        (1, "2"),
        np.float32(3.0),
        np.array([1.5]),
        np.array([[1, 2]]),
    ],
    ids=repr,
)
def test_bad_input_is_invalid_token_id_error_and_keeps_state(tok, bad):
    ids = tok.encode("héllo wörld")
    detok = _detok(tok)
    first = detok.step(ids[:2])
    with pytest.raises(toklane.InvalidTokenIdError) as info:
        detok.step(bad)
    assert TOK in str(info.value)
    assert repr(info.value.token_id)[:20] in str(info.value)
    assert first + detok.step(ids[2:]) + detok.flush() == tok.decode(ids)


@pytest.mark.parametrize(
    "good",
    [
        lambda ids: ids,
        tuple,
        lambda ids: range(ids[0], ids[0] + 1) if len(ids) == 1 else ids,
        lambda ids: np.array(ids, dtype=np.int64),
        lambda ids: np.array(ids, dtype=np.int32),
        lambda ids: [np.int64(i) for i in ids],
        lambda ids: [np.uint32(i) for i in ids],
        lambda ids: iter(ids),
    ],
)
def test_integer_forms_are_accepted(tok, good):
    ids = tok.encode("Hello <think> 世界")
    detok = _detok(tok)
    assert "".join(detok.step(good(ids[k : k + 2])) for k in range(0, len(ids), 2)) + detok.flush() == tok.decode(ids)


def test_single_ids_in_every_integer_type(tok):
    ids = tok.encode("ok")
    for convert in (int, np.int64, np.int16, np.uint64):
        detok = _detok(tok)
        assert "".join(detok.step(convert(i)) for i in ids) == "ok"
    detok = _detok(tok)
    assert "".join(detok.step(np.array(i)) for i in ids) == "ok"  # 0-d arrays


_ANYTHING = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(max_size=4)
    | st.binary(max_size=4),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner) | st.dictionaries(st.integers(0, 9), inner),
    max_leaves=6,
)


@settings(max_examples=examples(300), deadline=None)
@given(value=_ANYTHING)
def test_step_never_raises_anything_else(value):
    tok = toklane.load_tokenizer(TOK)
    detok = _detok(tok)
    try:
        detok.step(value)
    except toklane.InvalidTokenIdError:
        assert detok.step([9707]) + detok.flush() == "Hello"  # the failed step changed nothing


@pytest.mark.parametrize("bad", [5.0, None, "ab", [1.5], [None]], ids=repr)
def test_stop_matcher_names_bad_ids_and_keeps_state(tok, bad):
    sm = toklane.StopMatcher(tok, stop=["END"])
    with pytest.raises(toklane.InvalidTokenIdError):
        sm.step(bad)
    assert sm.step(tok.encode("Hello END")).text == "Hello "


@pytest.mark.parametrize("bad", [5.0, None, "ab", [1.5], [None], [10**9]], ids=repr)
def test_penalty_state_bad_ids_are_value_errors_naming_the_field(bad):
    ps = toklane.PenaltyState(1000)
    with pytest.raises(ValueError, match=r"prompt_ids|prompt ids|token id") as info:
        ps.add_request("r", bad, repetition_penalty=1.2)
    assert not isinstance(info.value, TypeError)
    ps.add_request("r", [1, 2], repetition_penalty=1.2)
    with pytest.raises(ValueError, match=r"new_ids|token id"):
        ps.append("r", bad)
    ps.append("r", [3])  # the failed append changed nothing
