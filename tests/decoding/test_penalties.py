"""PenaltyState against a dense reference that recounts everything at every apply."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane.decoding import penalties as _pen

from .reference import DensePenalties

V = 50


def random_logits(rng, rows, v=V):
    logits = rng.standard_normal((rows, v)).astype(np.float32) * 4
    logits[:, : v // 5] = 0.0  # exact zeros: neither branch of the repetition penalty moves them
    return logits


def torch_or_skip():
    return pytest.importorskip("torch")


@settings(max_examples=examples(150), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), backend=st.sampled_from(["numpy", "torch", "torch-flat", "torch-bf16"]))
def test_random_operations_equal_dense_reference(seed, backend):
    if backend != "numpy":
        torch = torch_or_skip()
    rng = np.random.default_rng(seed)
    state, ref = toklane.PenaltyState(V), DensePenalties(V)
    live: list[int] = []
    next_rid = 0
    for _ in range(30):
        op = rng.random()
        if op < 0.2 or not live:
            rid = next_rid
            next_rid += 1
            prompt = rng.integers(0, V, size=int(rng.integers(0, 12))).tolist()
            params = dict(
                presence_penalty=float(rng.choice([0.0, 0.5, -0.3])),
                frequency_penalty=float(rng.choice([0.0, 0.25, 1.5])),
                repetition_penalty=float(rng.choice([1.0, 1.3, 0.7])),
            )
            state.add_request(rid, prompt, **params)
            ref.add(rid, prompt, params["presence_penalty"], params["frequency_penalty"], params["repetition_penalty"])
            live.append(rid)
        elif op < 0.55:
            rid = int(rng.choice(live))
            new = rng.zipf(1.5, size=int(rng.integers(0, 5))) % V
            new = [*new.tolist(), *([-1] * int(rng.integers(0, 2)))]  # trailing placeholders are skipped
            state.append(rid, new if rng.random() < 0.5 else np.asarray(new))
            ref.append(rid, new)
        elif op < 0.7:
            rid = int(rng.choice(live))
            n = int(rng.integers(0, state.num_output_tokens(rid) + 1))
            state.rollback(rid, n)
            ref.rollback(rid, n)
        elif op < 0.75:
            rid = live.pop(int(rng.integers(0, len(live))))
            state.remove(rid)
        else:
            rids = [int(r) for r in rng.choice(live, size=int(rng.integers(1, len(live) + 1)))]  # repeats allowed
            logits = random_logits(rng, len(rids))
            expect = ref.apply(logits, rids)
            if backend == "numpy":
                got = state.apply(logits.copy(), rids)
            elif backend == "torch":
                got = state.apply(torch.from_numpy(logits.copy()), rids).numpy()
            elif backend == "torch-flat":  # the path used for GPU tensors, run on CPU
                t = torch.from_numpy(logits.copy())
                _pen._apply_torch_flat(t, [state._get(r) for r in rids])
                got = t.numpy()
            else:
                t = torch.from_numpy(logits).to(torch.bfloat16)
                expect = ref.apply(t.float().numpy(), rids)
                got = state.apply(t, rids).float().numpy()
                np.testing.assert_allclose(got, expect, rtol=1e-2, atol=1e-2)
                continue
            np.testing.assert_array_equal(got, expect)  # float32: the very same values, bit for bit
            for rid in rids:
                out = ref.reqs[rid][1]
                assert state.output_counts(rid) == {t: out.count(t) for t in set(out)}


@pytest.mark.parametrize("repetition", [1.3, 0.7, 1e-3, 1e3, 1.0000001, 0.9999999])
@pytest.mark.parametrize("backend", ["numpy", "torch-flat"])
def test_extreme_logits_bit_exact(repetition, backend):
    """Infinities, NaN, signed zeros, the largest and the subnormal floats: the same values as the
    dense formula (where(l > 0, l / rp, l * rp) then the two subtractions), bit for bit."""
    values = [np.inf, -np.inf, np.nan, 0.0, -0.0, 3.4e38, -3.4e38, 1e-45, -1e-45, 1e-40, -1e-40, 1.0, -1.0, 7.5]
    v = len(values)
    logits = np.array([values, values[::-1]], dtype=np.float32)
    state, ref = toklane.PenaltyState(v), DensePenalties(v)
    for rid in (0, 1):
        prompt = list(range(0, v, 2))
        state.add_request(rid, prompt, presence_penalty=0.5, frequency_penalty=-0.25, repetition_penalty=repetition)
        ref.add(rid, prompt, 0.5, -0.25, repetition)
        state.append(rid, [1, 3, 3, 5, 8, 13])
        ref.append(rid, [1, 3, 3, 5, 8, 13])
    expect = ref.apply(logits, [0, 1])
    if backend == "numpy":
        got = state.apply(logits.copy(), [0, 1])
    else:
        torch = torch_or_skip()
        t = torch.from_numpy(logits.copy())
        _pen._apply_torch_flat(t, [state._get(0), state._get(1)])
        got = t.numpy()
    np.testing.assert_array_equal(got, expect)  # NaN where NaN, every other value identical (0.0 == -0.0)


def test_semantics_by_hand():
    st_ = toklane.PenaltyState(8)
    st_.add_request("r", [1, 2], presence_penalty=0.5, frequency_penalty=0.25, repetition_penalty=2.0)
    st_.append("r", [3, 3, 1])
    logits = np.array([[1, 2, -2, -3, 4, 0, 0, 0]], dtype=np.float32)
    st_.apply(logits, ["r"])
    # token 1: prompt+output, 2/2=1, -0.25*1, -0.5 -> 0.25; token 2: prompt only, -2*2 = -4
    # token 3: output twice, -3*2 = -6, -0.5, -0.5 -> -7; others untouched
    np.testing.assert_allclose(logits[0], [1, 0.25, -4, -7, 4, 0, 0, 0])
    st_.rollback("r", 2)  # forget 3 and 1 (one of the 3s stays)
    assert st_.output_counts("r") == {3: 1}


def test_wider_logits_and_errors():
    st_ = toklane.PenaltyState(10)
    st_.add_request(0, [9], repetition_penalty=2.0)
    wide = np.ones((1, 16), dtype=np.float32)
    st_.apply(wide, [0])
    assert wide[0, 9] == 0.5 and wide[0, 10:].tolist() == [1.0] * 6
    with pytest.raises(ValueError):
        st_.apply(np.ones((1, 9), dtype=np.float32), [0])
    with pytest.raises(ValueError):
        st_.apply(np.ones((2, 10), dtype=np.float32), [0])
    with pytest.raises(KeyError):
        st_.apply(np.ones((1, 10), dtype=np.float32), [1])
    with pytest.raises(ValueError):
        st_.append(0, [1, 10])
    assert st_.num_output_tokens(0) == 0  # nothing counted from the rejected call
    with pytest.raises(ValueError):
        st_.append(0, [1.5])
    with pytest.raises(ValueError):
        st_.rollback(0, 1)
    with pytest.raises(ValueError):
        st_.add_request(0, [])
    with pytest.raises(ValueError):
        st_.add_request(1, [10])
    with pytest.raises(ValueError):
        st_.add_request(1, [], repetition_penalty=0.0)
    with pytest.raises(TypeError):
        st_.apply([[1.0] * 10], [0])


def test_many_tokens_grow_and_roll_back():
    rng = np.random.default_rng(1)
    st_, ref = toklane.PenaltyState(5000), DensePenalties(5000)
    st_.add_request("a", rng.integers(0, 5000, 300).tolist(), 0.1, 0.2, 1.1)
    ref.add("a", [], 0.1, 0.2, 1.1)
    ref.reqs["a"] = (list(st_._get("a").tok[: st_._get("a").n_prompt]), [], 0.1, 0.2, 1.1)
    for _ in range(20):
        new = (rng.zipf(1.2, 500) % 5000).tolist()
        st_.append("a", new)
        ref.append("a", new)
        n = int(rng.integers(0, 400))
        st_.rollback("a", n)
        ref.rollback("a", n)
    logits = random_logits(rng, 1, 5000)
    np.testing.assert_array_equal(st_.apply(logits.copy(), ["a"]), ref.apply(logits, ["a"]))
