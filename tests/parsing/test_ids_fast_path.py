"""The bulk token-id path (long ``feed(token_ids=...)``/``parse(token_ids=...)``, read by
:mod:`toklane.gather`) reads exactly what the per-token path reads -- with the compiled reader
and with the numpy fallback (every test here runs with each).

Outputs are built from marker ids, dropped special ids, ordinary ids, byte-fragment ids that split UTF-8
characters, and markers' texts spelled by ordinary tokens (text, unless the format has it as a text
marker); a long filler makes every output take the bulk path when fed whole. The reference is the same ids
fed one at a time (the per-token path, unchanged); chunks of 16 and of 300, numpy arrays and the whole list
must all agree with it. Bad ids raise :class:`toklane.InvalidTokenIdError` before any state changes.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane import gather
from toklane.gather import FALLBACK_MIN as _BULK

from .helpers import byte_ids, norm, stream


@pytest.fixture(autouse=True, scope="module", params=["compiled", "fallback"])
def reader(request: pytest.FixtureRequest) -> Any:
    """Each test once with the compiled reader (skipped where it is not built) and once without."""
    if request.param == "compiled" and not gather.NATIVE:
        pytest.skip("toklane._gather is not built here (no C compiler at install time)")
    with pytest.MonkeyPatch.context() as mp:
        if request.param == "fallback":
            mp.setattr(gather, "_native_runs", None)
        yield request.param


FORMATS: list[tuple[str, dict[str, Any]]] = [
    ("qwen3.6", {"reasoning": "qwen3", "tools": "hermes"}),
    ("qwen3.6", {"reasoning": "qwen3", "tools": "qwen3_coder"}),
    ("qwen3.6", {"reasoning": "qwen3"}),
    ("deepseek-v4", {"reasoning": "deepseek_r1"}),
    ("o200k_harmony", {"reasoning": "gpt_oss", "tools": "gpt_oss"}),
    ("mistral-tekken", {"tools": "mistral"}),
]
IDS = [f"{name}:{'+'.join(fmt.values())}" for name, fmt in FORMATS]
WORDS = ["hello", " world", "é", "日本語", "🙂", '{"name": "f", "arguments": {"a": 1}}', "\n", "  ", "<", ">", "x=1"]


@functools.cache
def _setup(index: int) -> tuple[toklane.Tokenizer, dict[str, Any], list[int], list[int], list[str], list[int]]:
    name, fmt = FORMATS[index]
    if name == "mistral-tekken":
        pytest.importorskip("mistral_common")
    tok = toklane.load_tokenizer(name)
    tables = toklane.get_parser(tok, **fmt)._tables
    marker_ids = sorted(tables.id_roles)
    drops = sorted(tables.drop_ids)[:8]
    filler = tok.encode("The quick brown fox jumps over the lazy dog. " * 40)
    assert len(filler) >= _BULK
    return tok, fmt, marker_ids, drops, list(tables.texts), filler


def _piece(tok: toklane.Tokenizer, markers: list[int], drops: list[int], texts: list[str], draw: Any) -> list[int]:
    kind = draw(st.integers(0, 5))
    if kind == 0 and markers:
        return [draw(st.sampled_from(markers))]
    if kind == 1 and drops:
        return [draw(st.sampled_from(drops))]
    if kind == 2:  # a multi-byte character split into byte tokens (fragments)
        return byte_ids(tok, draw(st.sampled_from(["é", "日", "🙂", "ж"])))
    if kind == 3 and texts:  # a marker's text spelled by ordinary tokens (a character each: no added token)
        return [i for c in draw(st.sampled_from(texts)) for i in tok.encode(c)]
    return tok.encode(draw(st.sampled_from(WORDS)))


def _feed(tok: toklane.Tokenizer, fmt: dict[str, Any], pieces: list[Any]) -> tuple[Any, ...]:
    return norm(stream(tok, fmt, pieces, True))


def _chunks(ids: list[int], size: int) -> list[list[int]]:
    return [ids[i : i + size] for i in range(0, len(ids), size)]


@pytest.mark.parametrize("index", range(len(FORMATS)), ids=IDS)
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_bulk_ids_equal_the_per_token_path(index: int, data: st.DataObject) -> None:
    tok, fmt, markers, drops, texts, filler = _setup(index)
    n = data.draw(st.integers(0, 30))
    body = [i for _ in range(n) for i in _piece(tok, markers, drops, texts, data.draw)]
    where = data.draw(st.sampled_from(["before", "after", "around", "none"]))
    ids = {
        "before": filler + body,
        "after": body + filler,
        "around": filler + body + filler,
        "none": body,
    }[where]
    expect = _feed(tok, fmt, [[i] for i in ids])  # the per-token path
    assert norm(toklane.parse(tok, token_ids=ids, **fmt)) == expect
    assert norm(toklane.parse(tok, token_ids=tuple(ids), **fmt)) == expect
    assert norm(toklane.parse(tok, token_ids=np.array(ids, dtype=np.int64), **fmt)) == expect
    assert norm(toklane.parse(tok, token_ids=np.array(ids, dtype=np.uint32), **fmt)) == expect
    assert _feed(tok, fmt, _chunks(ids, 16)) == expect
    assert _feed(tok, fmt, _chunks(ids, 300)) == expect
    cut = data.draw(st.integers(0, len(ids)))
    assert _feed(tok, fmt, [ids[:cut], ids[cut:]]) == expect  # a split inside a marker text or a character


@pytest.mark.parametrize("index", range(len(FORMATS)), ids=IDS)
def test_bad_ids_raise_before_any_state_change(index: int) -> None:
    tok, fmt, markers, _, _, filler = _setup(index)
    good = filler + markers[:1] + filler
    expect = norm(toklane.parse(tok, token_ids=good, **fmt))
    holes = [i for i, b in enumerate(tok.token_bytes_table) if b is None][:1]
    ordinary = filler[0]
    for bad in [tok.vocab_size, 10**9, -2, *holes, True, np.int64(ordinary), float(ordinary), "x"]:
        try:  # what the per-token path does with it (``True`` is id 1, which may be a special token)
            toklane.get_parser(tok, **fmt).feed(token_ids=[bad])
        except toklane.InvalidTokenIdError:
            pass
        else:
            ids = [*filler, bad, *filler]
            assert norm(toklane.parse(tok, token_ids=ids, **fmt)) == _feed(tok, fmt, [[i] for i in ids])
            continue
        for ids in ([*filler, bad, *filler], [*good, bad]):
            parser = toklane.get_parser(tok, **fmt)
            first = parser.feed(token_ids=filler[:3])
            with pytest.raises(toklane.InvalidTokenIdError):
                parser.feed(token_ids=ids)
            # nothing of the bad feed was read: the stream goes on as if it never came
            rest = [first, parser.feed(token_ids=filler[3:]), parser.feed(token_ids=markers[:1] + filler)]
            rest.append(parser.finish())
            assert norm(toklane.ParseResult.from_deltas(rest)) == expect
    # a numpy array holding an out-of-range id
    with pytest.raises(toklane.InvalidTokenIdError):
        toklane.parse(tok, token_ids=np.array([*filler, tok.vocab_size]), **fmt)


@pytest.mark.parametrize("index", range(len(FORMATS)), ids=IDS)
def test_placeholders_and_dropped_tokens_in_bulk(index: int) -> None:
    tok, fmt, markers, drops, _, filler = _setup(index)
    rnd = random.Random(index)
    ids = filler + markers + filler
    expect = norm(toklane.parse(tok, token_ids=ids, **fmt))
    # trailing -1 placeholders (async scheduling) are skipped, as one at a time
    assert norm(toklane.parse(tok, token_ids=[*ids, -1, -1], **fmt)) == expect
    if drops:  # dropped special tokens leave nothing, wherever they are
        mixed = list(ids)
        for _ in range(10):
            mixed.insert(rnd.randrange(len(mixed) + 1), rnd.choice(drops))
        got = norm(toklane.parse(tok, token_ids=mixed, **fmt))
        assert got == _feed(tok, fmt, [[i] for i in mixed])
        only = [rnd.choice(drops) for _ in range(_BULK + 5)]
        assert norm(toklane.parse(tok, token_ids=only, **fmt)) == _feed(tok, fmt, [[i] for i in only])


@pytest.mark.parametrize("index", range(len(FORMATS)), ids=IDS)
@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_parse_batch_equals_parse_per_output(index: int, data: st.DataObject) -> None:
    """A batch (all id lists: one pass over the whole batch; or a mix with texts and arrays) gives
    what ``parse`` gives for each output."""
    tok, fmt, markers, drops, texts, filler = _setup(index)
    outputs = []
    for _ in range(data.draw(st.integers(1, 5))):
        body = [i for _ in range(data.draw(st.integers(0, 12))) for i in _piece(tok, markers, drops, texts, data.draw)]
        outputs.append(data.draw(st.sampled_from([body, filler + body, body + filler[:40], []])))
    expect = [norm(toklane.parse(tok, token_ids=ids, **fmt)) for ids in outputs]
    assert [norm(r) for r in toklane.parse_batch(tok, outputs, **fmt)] == expect
    mixed = [
        ids if k % 3 == 0 else np.array(ids, dtype=np.int64) if k % 3 == 1 else tok.decode(ids)
        for k, ids in enumerate(outputs)
    ]
    by_text = [norm(toklane.parse(tok, text=x, **fmt)) if type(x) is str else expect[k] for k, x in enumerate(mixed)]
    assert [norm(r) for r in toklane.parse_batch(tok, mixed, **fmt)] == by_text


def test_parse_batch_names_the_output_with_a_bad_id() -> None:
    tok, fmt, _, _, _, filler = _setup(0)
    good = filler[:300]
    for bad in (tok.vocab_size, -2, True, 1.5):
        with pytest.raises(toklane.InvalidTokenIdError) as info:
            toklane.parse_batch(tok, [good, good, [*good[:5], bad]], **fmt)
        assert "in output 2 of the batch" in info.value.__notes__
    assert toklane.parse_batch(tok, [], **fmt) == []
    with pytest.raises(toklane.UnknownFormatError):
        toklane.parse_batch(tok, [good], tools="no_such_format")


def test_numpy_integers_in_a_list_are_ids_as_in_the_detokenizer() -> None:
    tok, fmt, markers, _, _, filler = _setup(0)
    ids = [*filler, markers[0], *filler[:5]]
    expect = norm(toklane.parse(tok, token_ids=ids, **fmt))
    for form in (np.int64, np.uint32, np.int16):
        as_np = [form(i) if i < 32_000 else i for i in ids]
        assert norm(toklane.parse(tok, token_ids=as_np, **fmt)) == expect  # bulk
        assert _feed(tok, fmt, [[i] for i in as_np]) == expect  # one at a time


REASONING_ONLY = [i for i, (_, fmt) in enumerate(FORMATS) if set(fmt) == {"reasoning"}]


@pytest.mark.parametrize("index", REASONING_ONLY, ids=[IDS[i] for i in REASONING_ONLY])
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_reasoning_only_outputs_read_as_two_runs(index: int, data: st.DataObject) -> None:
    """A reasoning-only output of the usual shape (reasoning, the end marker id, content) is read as
    two runs decoded on their own, stripped as bytes: what the per-token path reads, with whitespace,
    split characters, dropped ids and spelled marker texts anywhere (those send it the general way)."""
    tok, fmt, markers, drops, texts, filler = _setup(index)
    tables = toklane.get_parser(tok, **fmt)._tables
    (end,) = [t for t, k in tables.id_roles.items() if tables.roles[k] == "reasoning_end"]
    space = st.sampled_from(["", " ", "\n", " \r\n\t", "\n\n"])

    def part() -> list[int]:
        out = tok.encode(data.draw(space))
        for _ in range(data.draw(st.integers(0, 6))):
            piece = _piece(tok, markers, drops, texts, data.draw)
            if not set(piece) & set(markers):
                out += piece
        return out + tok.encode(data.draw(space))

    before, after = part() + filler + part(), part()
    ids = [*before, end, *after]
    expect = _feed(tok, fmt, [[i] for i in ids])
    taken: list[Any] = []
    read = type(toklane.get_parser(tok, **fmt))._ids_as_text
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(
            type(toklane.get_parser(tok, **fmt)), "_ids_as_text", lambda self, i: taken.append(1) or read(self, i)
        )
        assert norm(toklane.parse(tok, token_ids=ids, **fmt)) == expect
    runs = [tok.decode([i for i in run if i not in drops]) for run in (before, after)]
    spelled = any(t in run for t in texts for run in runs)
    assert bool(taken) == spelled  # the two runs are read directly unless a marker's text is in them


@pytest.mark.parametrize("extra", ["x<think", "</think>!"])
def test_whole_ids_where_the_text_would_read_other_markers(extra: str) -> None:
    """parse(token_ids=) reads a whole output as the text of its ids when that text has the same
    markers; here a special token (dropped) whose text overlaps a marker's makes the text read
    differently, and the ids are read as ids."""
    from .helpers import _with_specials

    tok = _with_specials(("<think>", "</think>", extra))
    think, end = tok.token_to_id("<think>"), tok.token_to_id("</think>")
    ordinary = tok.encode(extra, split_special_tokens=True)
    filler = tok.encode(" ".join(f"w{i}" for i in range(300)))
    for ids in (
        [*ordinary[:-2], *tok.encode("x"), think, *filler, end, *tok.encode("! answer"), *filler],
        [think, *filler, *ordinary, end, *tok.encode("! answer")],
        [*tok.encode("x"), think, *filler, end, *tok.encode("!"), *filler],
    ):
        expect = _feed(tok, {"reasoning": "qwen3"}, [[i] for i in ids])
        assert norm(toklane.parse(tok, token_ids=ids, reasoning="qwen3")) == expect


def test_one_id_as_a_zero_dimensional_array() -> None:
    tok, fmt, markers, _, _, filler = _setup(0)
    for t in (filler[0], markers[0]):
        want = norm(toklane.parse(tok, token_ids=[t], **fmt))
        assert norm(toklane.parse(tok, token_ids=np.array(t), **fmt)) == want
        assert _feed(tok, fmt, [np.array(t)]) == want
