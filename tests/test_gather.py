"""The id reader (:func:`toklane.gather.runs`): the compiled reader and the numpy fallback
against a plain per-id reference, on the bundled tokenizers' real byte tables."""

from __future__ import annotations

import functools
import itertools
import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane import gather
from toklane.gather import DROPPED, HOLE, MARKER, ORDINARY

FORMATS = [("qwen3.6", {"reasoning": "qwen3", "tools": "hermes"}), ("o200k_harmony", {"reasoning": "gpt_oss"})]


@functools.cache
def _table(index: int) -> tuple[toklane.Tokenizer, gather.IdTable]:
    name, fmt = FORMATS[index]
    tok = toklane.load_tokenizer(name)
    tables = toklane.get_parser(tok, **fmt)._tables
    return tok, tables.load_id_table(tok)


#: Ordinary text long enough to take any input past FALLBACK_MIN.
_WORDS = " ".join(f"{i} é{i}" for i in range(gather.FALLBACK_MIN))
FILLER = [toklane.load_tokenizer(name).encode(_WORDS) for name, _ in FORMATS]


def reference(
    ids: list[Any], table: gather.IdTable, decode: bool, placeholders: bool = True
) -> tuple[list[Any], list[int]] | None:
    """One id at a time: what ``runs`` must return (None where the per-token loop must read them)."""
    kinds = table.kind_array
    runs: list[bytes] = [b""]
    positions = []
    for p, t in enumerate(ids):
        if t == -1 and type(t) is int and placeholders:  # a placeholder: skipped
            continue
        if type(t) is not int or not 0 <= t < len(kinds):
            return None
        kind = kinds[t]
        if kind == ORDINARY:
            runs[-1] += table.table[t]  # type: ignore[operator]
        elif kind == MARKER:
            positions.append(p)
            runs.append(b"")
        elif kind != DROPPED:
            return None
    return ([r.decode(errors="replace") for r in runs] if decode else runs), positions


def reference_text(ids: list[Any], table: gather.IdTable, placeholders: bool = True) -> Any:
    """What ``text`` must return: the reference runs, each decoded on its own, joined with each
    marker's own text; where each marker's text starts."""
    got = reference(ids, table, True, placeholders)
    if got is None:
        return None
    runs, positions = got
    text, starts = runs[0], []
    for run, p in zip(runs[1:], positions, strict=True):
        starts.append(len(text))
        text += table.table[ids[p]].decode() + run  # type: ignore[union-attr]
    return text, positions, starts


def _interesting(table: gather.IdTable) -> list[int]:
    kinds = table.kind_array
    last = max(i for i, b in enumerate(table.table) if b)  # its bytes end the blob
    longest = max(range(len(table.table)), key=lambda i: len(table.table[i] or b""))
    inline = [i for i, b in enumerate(table.table) if b is not None and len(b) in (gather.INLINE, gather.INLINE + 1)]
    stray = [i for i, b in enumerate(table.table) if b is not None and len(b) == 1 and 0x80 <= b[0] < 0xC0]
    return [
        *inline[:2],
        *stray[:3],
        *np.flatnonzero(kinds == MARKER)[:6].tolist(),
        *np.flatnonzero(kinds == DROPPED)[:6].tolist(),
        *np.flatnonzero(kinds == HOLE)[:2].tolist(),
        last,
        longest,
        0,
        len(kinds) - 1,
    ]


@pytest.mark.parametrize("index", range(len(FORMATS)), ids=[f[0] for f in FORMATS])
@settings(max_examples=examples(150), deadline=None)
@given(data=st.data())
def test_runs_equal_the_reference(index: int, data: st.DataObject) -> None:
    tok, table = _table(index)
    special = _interesting(table)
    ordinary = st.integers(0, len(table.kind_array) - 1)
    fragments = st.sampled_from([*tok.encode("héllo 日本語 🙂 x"), tok.vocab_size - 1])
    big = [-(2**40), -(2**30), 2**31, 2**70, len(table.kind_array)]
    odd = st.sampled_from([-1, -2, *big, True, False, 1.0, "7", np.int64(5)])
    item = st.one_of(ordinary, fragments, st.sampled_from(special), odd) if data.draw(st.booleans()) else ordinary
    ids = data.draw(st.lists(st.one_of(ordinary, st.sampled_from(special), fragments, item), max_size=400))
    ids = ids + FILLER[index] if data.draw(st.booleans()) else ids  # past FALLBACK_MIN
    plain = all(type(i) is int for i in ids)  # (the fallback also reads numpy integers, as the loop does)
    for decode in (False, True):
        want = reference(ids, table, decode)
        for form in (ids, tuple(ids)):
            if gather.NATIVE:
                assert gather.runs(form, table, decode) == want
                assert gather.runs(form, table, decode, False) == reference(ids, table, decode, False)
            if plain and -1 not in ids:  # the fallback declines short inputs and -1, and reads long ones
                assert gather._fallback_runs(form, table, decode) == (want if len(ids) >= gather.FALLBACK_MIN else None)
        if want is not None and len(ids) >= gather.FALLBACK_MIN and -1 not in ids:
            assert gather.runs(np.array(ids, dtype=np.int64), table, decode) == want
    want = reference_text(ids, table)
    for form in (ids, tuple(ids)):
        assert gather.text(form, table) == want
        assert gather.text(form, table, False) == reference_text(ids, table, False)
    if want is not None and len(ids) >= gather.FALLBACK_MIN and -1 not in ids:
        assert gather.text(np.array(ids, dtype=np.int64), table) == want  # (the fallback)


@pytest.mark.parametrize("index", range(len(FORMATS)), ids=[f[0] for f in FORMATS])
def test_runs_grow_past_the_first_guess_of_their_size(index: int) -> None:
    """The reader guesses 6 bytes per id: long tokens, alone, in a row or between short ones and
    markers, take it past that, from the fast path (short tokens) and the long-token path alike."""
    _, table = _table(index)
    kinds = table.kind_array
    by_length = sorted((i for i in range(len(kinds)) if kinds[i] == ORDINARY), key=lambda i: len(table.table[i]))
    longest, long16 = by_length[-1], next(i for i in by_length if len(table.table[i]) > 16)
    short = by_length[len(by_length) // 2]
    marker = int(np.flatnonzero(kinds == MARKER)[0])
    for ids in (
        [longest] * 3000,
        [long16, short] * 1500,
        [short] * 63 + [longest] * 200 + [marker] + [short, longest] * 700,
    ):
        for decode in (False, True):
            assert gather.runs(ids, table, decode) == reference(ids, table, decode)


@pytest.mark.parametrize("index", range(len(FORMATS)), ids=[f[0] for f in FORMATS])
def test_text_places_markers_in_invalid_utf8(index: int) -> None:
    """Marker offsets in ``text`` count characters as decoding gives them, also where runs hold
    stray continuation bytes (one U+FFFD each) or cut characters before and after markers."""
    tok, table = _table(index)
    kinds = table.kind_array
    marker = int(np.flatnonzero(kinds == MARKER)[0])
    stray = next(i for i, b in enumerate(table.table) if b is not None and b == b"\x80")
    emoji = tok.encode("🙂 日本")
    for ids in (
        [stray, marker, stray, stray, marker],
        [*emoji[:1], marker, *emoji[1:], marker, stray],
        [stray] * 5 + [marker] + tok.encode("é") + [stray, marker],
        [marker, marker, *tok.encode("héllo"), stray],
    ):
        got = gather.text(ids, table)
        assert got == reference_text(ids, table)
        text, positions, starts = got  # type: ignore[misc]
        for p, at in zip(positions, starts, strict=True):
            assert text.startswith(table.table[ids[p]].decode(), at)  # type: ignore[union-attr]


def test_a_marker_of_cut_characters_is_left_to_the_loop() -> None:
    """A marker whose bytes are no whole characters is read as a hole (``text`` decodes markers
    within the text, where such bytes would join their neighbours)."""
    tok = toklane.load_tokenizer("qwen3.6")
    stray = next(i for i, b in enumerate(tok.token_bytes_table) if b == b"\x80")
    table = gather.IdTable(tok, [stray], [], tok.vocab_size)
    assert table.kind_array[stray] == HOLE
    assert gather.runs([1, stray, 2], table, False) is None
    assert gather.text([1, stray, 2], table) is None


def test_runs_refuses_what_it_cannot_read() -> None:
    _, table = _table(0)
    for ids in (iter([1, 2]), {1: 2}, "12", 5):
        assert gather.runs(ids, table, False) is None
    assert gather.runs(np.array([[1, 2]] * 300), table, False) is None  # 2-D
    assert gather.runs(np.array([1.0] * 300), table, False) is None
    assert gather.runs(np.array([-1] * 300), table, False) is None
    assert gather.runs([], table, True) == ([""], []) or not gather.NATIVE
    if gather.NATIVE:
        from toklane._gather import runs

        with pytest.raises(TypeError):
            runs([1], table.blob, table.entries + b"x", table.kinds, False, True)  # not whole entries
        with pytest.raises(TypeError):
            runs([1], table.blob, table.entries, table.kinds + b"\0", False, True)  # a kind with no entry
        assert runs([7], table.blob, table.entries, table.kinds[:7], False, True) is None  # past the kinds
        with pytest.raises(TypeError):
            runs(iter([1]), table.blob, table.entries, table.kinds, False, True)
        # entries pointing past the blob are declined, never read
        entries = np.frombuffer(table.entries, dtype=gather._entry_dtype())
        longest = int(np.flatnonzero((entries["other"] == 1) & (table.kind_array == ORDINARY))[0])
        bad = entries.copy()
        bad.view(np.uint32).reshape(len(bad), 4)[longest, 0] = len(table.blob) - 1
        assert runs([longest], table.blob, bad.tobytes(), table.kinds, False, True) is None
        assert gather._native_text([longest], table.blob, bad.tobytes(), table.kinds, True) is None


def test_the_compiled_reader_is_built() -> None:
    """The dev install (README) compiles toklane._gather; a silent fallback would leave it untested.
    TOKLANE_PURE_PYTHON=1 turns it off."""
    assert gather.NATIVE, "toklane._gather did not build: is a C compiler installed? (pip install -e . builds it)"
    code = "from toklane import gather; print(gather.NATIVE)"
    env = {**os.environ, "TOKLANE_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@settings(max_examples=examples(200), deadline=None)
@given(ids=st.lists(st.integers(0, 2**32 - 1) | st.integers(0, 300), max_size=200))
def test_id_lists_equal_tolist_and_share_one_int_per_id(ids: list[int]) -> None:
    """IdLists: a uint32 array as the list numpy's tolist gives, each id below the cache's size one
    shared int object across calls; ids past it, slices and other dtypes are read as they are."""
    lists = gather.IdLists(256)
    arr = np.array(ids, dtype=np.uint32)
    first, again = lists(arr), lists(arr)
    assert first == again == arr.tolist()
    assert all(type(x) is int for x in first)
    if gather.NATIVE:
        assert all(a is b for a, b in zip(first, again, strict=True) if a < 256)
    assert lists(arr[::2]) == arr[::2].tolist()  # not contiguous: tolist
    assert lists(arr.astype(np.int64)) == ids
    # a list of arrays: their ids end to end (with and without the C module, and with one part
    # it cannot read, which sends the whole list to numpy)
    cut = len(ids) // 3
    parts = [arr[:cut], arr[cut : 2 * cut], np.zeros(0, dtype=np.uint32), arr[2 * cut :]]
    assert lists(parts) == ids
    assert lists([*parts[:3], arr[2 * cut :].astype(np.int64)]) == ids
    assert lists([]) == []


def test_id_list_refuses_what_is_no_uint32_buffer() -> None:
    if not gather.NATIVE:
        pytest.skip("the compiled reader is not built")
    from toklane._gather import id_list, ints

    cache = ints(10)
    assert id_list(cache, np.array([3, 11], dtype=np.uint32)) == [3, 11]
    assert id_list(cache, memoryview(np.array([4], dtype=np.uint32).tobytes()).cast("I")) == [4]
    with pytest.raises(TypeError, match="4-byte unsigned"):
        id_list(cache, np.array([1], dtype=np.int64))
    with pytest.raises(TypeError, match="4-byte unsigned"):
        id_list(cache, b"abcd")
    with pytest.raises(TypeError):
        id_list(cache, [1, 2])  # a list holds buffers
    one, two = np.array([1, 12], dtype=np.uint32), np.array([2], dtype=np.uint32)
    assert id_list(cache, [one, two, np.zeros(0, dtype=np.uint32)]) == [1, 12, 2]
    with pytest.raises(TypeError, match="4-byte unsigned"):
        id_list(cache, [one, two.astype(np.int64)])
    with pytest.raises(ValueError, match="size"):
        ints(-1)


def _flat_reference(lengths: list[int], ids: list[int]) -> tuple[bytes, bytes, list[list[int]]]:
    """A flat batch encoding as fastokens' ``encode_batch_flat`` lays it out (little-endian uint32 ids,
    little-endian uint64 offsets, one more than the texts), and the lists it stands for."""
    at = [0]
    for n in lengths:
        at.append(at[-1] + n)
    ids = (ids * (at[-1] // max(len(ids), 1) + 1))[: at[-1]] if ids else [0] * at[-1]
    lists = [ids[a:b] for a, b in itertools.pairwise(at)]
    return np.array(ids, dtype="<u4").tobytes(), np.array(at, dtype="<u8").tobytes(), lists


@settings(max_examples=examples(200), deadline=None)
@given(
    lengths=st.lists(st.integers(0, 40), max_size=12),
    ids=st.lists(st.integers(0, 2**32 - 1) | st.integers(0, 300), max_size=60),
    native=st.booleans(),
)
def test_flat_batches_read_as_lists(lengths: list[int], ids: list[int], native: bool) -> None:
    """IdLists.flat: a flat batch encoding as one list per text, with the C module (ids below the cache's
    size shared across calls) and without (numpy)."""
    lists = gather.IdLists(256)
    if not native:
        lists._cache = None  # (the pure-Python path's reader)
    flat, offsets, want = _flat_reference(lengths, ids)
    got = lists.flat(flat, offsets)
    assert got == want and all(type(x) is int for text in got for x in text)
    if native and gather.NATIVE:
        again = lists.flat(flat, offsets)
        assert all(a is b for x, y in zip(got, again, strict=True) for a, b in zip(x, y, strict=True) if a < 256)


@pytest.mark.parametrize("native", [True, False])
def test_flat_batches_refuse_buffers_that_disagree(native: bool) -> None:
    """A flat encoding whose offsets run backwards or past the ids, or whose sizes are not whole items,
    is refused with ValueError (never read out of bounds), on both readers."""
    lists = gather.IdLists(16)
    if not native:
        lists._cache = None
    elif not gather.NATIVE:
        pytest.skip("the compiled reader is not built")
    ids = np.array([1, 2, 3], dtype="<u4").tobytes()
    assert lists.flat(ids, np.array([0, 1, 3], dtype="<u8").tobytes()) == [[1], [2, 3]]
    assert lists.flat(ids, np.array([3], dtype="<u8").tobytes()) == []
    for bad in ([0, 4], [0, 2, 1], [5, 1]):
        with pytest.raises(ValueError):
            lists.flat(ids, np.array(bad, dtype="<u8").tobytes())
    with pytest.raises(ValueError):
        lists.flat(ids + b"\x00", np.array([0, 3], dtype="<u8").tobytes())
    with pytest.raises(ValueError):
        lists.flat(ids, np.array([0, 3], dtype="<u8").tobytes()[:-1])
    with pytest.raises(ValueError):
        lists.flat(ids, b"")
