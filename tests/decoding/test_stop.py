"""StopMatcher against a from-scratch search of the whole decoded text, over every chunking."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples

from .reference import stop_ref

PHRASES = ["Hello", " world", "\n", "Ob", "servation", ":", " END", "END", "🚀", "日本", " stop", "<|im_end|>", "é"]
STOPS = ["Observation:", "END", "\n\n", "🚀🚀", "日本語", "stop here", "#", "é"]


def longest_stop_prefix(text, stops):
    return max((n for s in stops for n in range(1, len(s)) if text.endswith(s[:n])), default=0)


def run(sm, ids, cuts, stops=()):
    texts, results, prev = [], [], 0
    for cut in [*sorted(cuts), len(ids)]:
        r = sm.step(ids[prev:cut])
        prev = cut
        texts.append(r.text)
        results.append(r)
        if r.stopped:
            break
        # What is held back is exactly the longest tail that may still become a stop string.
        assert len(sm.held_text) == longest_stop_prefix("".join(texts) + sm.held_text, stops)
    else:
        r = sm.flush()
        texts.append(r.text)
        results.append(r)
    return texts, results


@pytest.mark.parametrize("name", ["qwen3", "cl100k_base", "llama3"])
@settings(max_examples=examples(120), deadline=None)
@given(data=st.data())
def test_any_chunking_equals_reference(name, data):
    tok = toklane.load_tokenizer(name)
    phrases = data.draw(st.lists(st.sampled_from(PHRASES), max_size=14))
    ids = [i for p in phrases for i in tok.encode(p)]
    ids += data.draw(st.lists(st.integers(0, 255), max_size=3))  # bytes of broken characters
    stops = data.draw(st.lists(st.sampled_from(STOPS), max_size=3))
    stop_ids = data.draw(st.sets(st.sampled_from([*tok.eos_token_ids, *tok.encode(" END")]), max_size=2))
    include = data.draw(st.booleans())
    skip = data.draw(st.booleans())
    cuts = data.draw(st.lists(st.integers(0, len(ids)), max_size=10))
    sm = toklane.StopMatcher(
        tok, stop=stops, stop_token_ids=stop_ids, include_stop_str_in_output=include, skip_special_tokens=skip
    )
    texts, results = run(sm, ids, cuts, stops)
    expect, stop, token = stop_ref(tok, ids, stops, stop_ids, include, skip)
    assert "".join(texts) == expect
    last = results[-1]
    assert (last.stop, last.token_index) == (stop, token)
    assert last.stopped == (stop is not None)
    if last.stopped:
        assert last.cut == len(expect) and last.stop_included == include
        assert sm.step(ids[:1]) == sm.result and sm.result.text == ""


def test_holds_back_only_a_possible_stop_prefix():
    tok = toklane.load_tokenizer("qwen3")
    sm = toklane.StopMatcher(tok, stop=["Observation:", "<END>"])
    shown = ""
    for i in tok.encode("Thought: check <EN Obs"):
        shown += sm.step([i]).text
    assert shown == "Thought: check <EN " and sm.held_text == "Obs"
    r = sm.step(tok.encode("ervation: x"))
    assert r.stopped and r.stop == "Observation:" and r.text == "" and r.cut == len("Thought: check <EN ")
    sm = toklane.StopMatcher(tok, stop=["Observation:"])
    assert sm.step(tok.encode("Obs")).text == "" and sm.flush().text == "Obs"


def test_earliest_stop_wins_and_extra_tokens_are_reported():
    tok = toklane.load_tokenizer("cl100k_base")
    ids = tok.encode("abc STOP def END ghi")
    sm = toklane.StopMatcher(tok, stop=["END", "STOP"], include_stop_str_in_output=True)
    r = sm.step(ids)  # one step with many tokens (speculative decoding): cut inside it
    assert r.stopped and r.stop == "STOP" and r.text == "abc STOP"
    assert tok.decode(ids[: r.token_index + 1]).endswith("STOP")


def test_stop_token_and_feed_text():
    tok = toklane.load_tokenizer("qwen3")
    eos = tok.token_to_id("<|im_end|>")
    sm = toklane.StopMatcher(tok, stop_token_ids=[eos])
    r = sm.step([*tok.encode("done"), eos, *tok.encode("more")])
    assert (r.text, r.stop, r.token_index, r.cut) == ("done", eos, 1, 4)
    sm = toklane.StopMatcher(tok, stop=["\n\n"])
    assert sm.feed_text("a\n").text == "a" and sm.feed_text("\nb").stopped


def test_invalid_ids_and_stops():
    tok = toklane.load_tokenizer("qwen3")
    sm = toklane.StopMatcher(tok, stop=["x"])
    with pytest.raises(toklane.InvalidTokenIdError):
        sm.step([1, -5])
    assert sm.step(tok.encode("ab")).text == "ab"
    with pytest.raises(ValueError):
        toklane.StopMatcher(tok, stop=[""])
