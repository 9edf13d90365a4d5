"""Fuzz targets: each takes the fuzzer's bytes and fails (raises) only on a real defect.

Every target checks a property against a simple reference, not only "no
exception": parsers give the same result whole and streamed in the chunks the
input chooses, by text and by ids; the detokenizer's chunks concatenate to
``decode``; the stop matcher equals a search of the whole decoded text; a
tokenizer file either loads and encodes or raises ``TokenizerLoadError``.
Inputs are read with atheris' ``FuzzedDataProvider``; the same bytes always
give the same case, so a crash file replays with ``python -m tests.fuzz NAME FILE``.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import tempfile
from collections.abc import Callable
from typing import Any

import atheris

import toklane

# Small, diverse tokenizers: two engines each, byte-level BPE with many added tokens.
DECODE_TOKENIZERS = ["qwen3.6", "qwen3", "llama3", "deepseek-v4", "o200k_harmony", "mistral-tekken"]
# Strings the fuzzer splices into parser inputs: the markers every format reacts to.
MARKER_BITS = [
    "<think>", "</think>", "<tool_call>", "</tool_call>", "[TOOL_CALLS]", "[ARGS]", "[THINK]", "[/THINK]",
    "<|channel|>", "<|message|>", "<|end|>", "<|call|>", "<|start|>", "<|constrain|>", "to=functions.f",
    "<function=", "</function>", "<parameter=", "</parameter>", '{"name": "f", "arguments": {', '"}', "}",
    "[f(a=1)]", "(", ")", "[", "]", ",", '"', "\\", "\n", " ", "<|python_tag|>", "analysis", "final",
]  # fmt: skip


def _chunks(fdp: atheris.FuzzedDataProvider, seq: Any) -> list[Any]:
    """``seq`` cut where the input says (at most 64 pieces)."""
    cuts = sorted({fdp.ConsumeIntInRange(0, len(seq)) for _ in range(fdp.ConsumeIntInRange(0, 64))})
    bounds = [0, *cuts, len(seq)]
    return [seq[a:b] for a, b in itertools.pairwise(bounds)]


def _norm(result: toklane.ParseResult) -> tuple[Any, ...]:
    return (
        result.reasoning or None,
        result.content or None,
        [(c.name, json.loads(c.arguments)) for c in result.tool_calls],
    )


@functools.cache
def _suites() -> list[Any]:
    from tests.conformance.test_conformance import SUITES

    return SUITES


def _text(fdp: atheris.FuzzedDataProvider, seed: str) -> str:
    """A conformance output, mutated: truncated, spliced with markers or random text, or replaced."""
    mode = fdp.ConsumeIntInRange(0, 3)
    if mode == 0:
        return seed[: fdp.ConsumeIntInRange(0, len(seed))]
    if mode == 1:
        out = seed
        for _ in range(fdp.ConsumeIntInRange(1, 4)):
            at = fdp.ConsumeIntInRange(0, len(out))
            out = out[:at] + fdp.PickValueInList(MARKER_BITS) + out[at:]
        return out
    if mode == 2:
        at = fdp.ConsumeIntInRange(0, len(seed))
        end = fdp.ConsumeIntInRange(at, len(seed))
        return seed[:at] + fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 32)) + seed[end:]
    return "".join(
        fdp.PickValueInList(MARKER_BITS) if fdp.ConsumeBool() else fdp.ConsumeUnicodeNoSurrogates(8)
        for _ in range(fdp.ConsumeIntInRange(0, 24))
    )


def parsers(data: bytes) -> None:
    """Every format of the conformance corpus on mutated outputs: never raises, streaming == whole."""
    from tests.parsing.helpers import tokenizer

    fdp = atheris.FuzzedDataProvider(data)
    suites = _suites()
    suite = suites[fdp.ConsumeIntInRange(0, len(suites) - 1)]
    sample = suite.samples[fdp.ConsumeIntInRange(0, len(suite.samples) - 1)]
    fmt = suite.fmt(sample)
    tok = tokenizer(suite.tokenizer)
    text = _text(fdp, sample.output)
    whole = _norm(toklane.parse(tok, text=text, **fmt))
    streamed = _stream(tok, fmt, [{"text": t} for t in _chunks(fdp, text)])
    assert streamed == whole, (text, streamed, whole)
    ids = tok.encode(text)
    by_ids = _norm(toklane.parse(tok, token_ids=ids, **fmt))
    assert _stream(tok, fmt, [{"token_ids": c} for c in _chunks(fdp, ids)]) == by_ids, (text, ids)
    if tok.decode(ids) == text:  # the ids spell the same text: the same result
        assert by_ids == whole, (text, by_ids, whole)


def _stream(tok: toklane.Tokenizer, fmt: dict[str, Any], pieces: list[dict[str, Any]]) -> tuple[Any, ...]:
    parser = toklane.get_parser(tok, **fmt)
    deltas = [parser.feed(**p) for p in pieces]
    deltas.append(parser.finish())
    return _norm(toklane.ParseResult.from_deltas(deltas))


def _random_ids(fdp: atheris.FuzzedDataProvider, tok: toklane.Tokenizer) -> list[int]:
    table = tok.token_bytes_table
    ids = []
    for _ in range(fdp.ConsumeIntInRange(0, 48)):
        i = fdp.ConsumeIntInRange(0, len(table) - 1) if fdp.ConsumeBool() else fdp.ConsumeIntInRange(0, 300)
        if table[i] is not None:
            ids.append(i)
    return ids


def detokenizer(data: bytes) -> None:
    """Random ids (byte fragments, added and special tokens) in any chunking concatenate to ``decode``."""
    fdp = atheris.FuzzedDataProvider(data)
    tok = toklane.load_tokenizer(fdp.PickValueInList(DECODE_TOKENIZERS))
    ids = _random_ids(fdp, tok)
    skip = fdp.ConsumeBool()
    det = toklane.IncrementalDetokenizer(tok, skip_special_tokens=skip)
    text = "".join(det.step(c) for c in _chunks(fdp, ids)) + det.flush()
    assert text == tok.decode(ids, skip_special_tokens=skip), ids
    assert det.pending_bytes == 0


def stop_matcher(data: bytes) -> None:
    """Stop strings drawn from the output itself (and random ones) against a whole-text search."""
    from tests.decoding.reference import stop_ref

    fdp = atheris.FuzzedDataProvider(data)
    tok = toklane.load_tokenizer(fdp.PickValueInList(DECODE_TOKENIZERS[:4]))
    ids = _random_ids(fdp, tok)
    full = tok.decode(ids)
    stops = []
    for _ in range(fdp.ConsumeIntInRange(0, 3)):
        if full and fdp.ConsumeBool():
            at = fdp.ConsumeIntInRange(0, len(full) - 1)
            stops.append(full[at : at + fdp.ConsumeIntInRange(1, 6)])
        else:
            stops.append(fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(1, 4)) or "x")
    stop_ids = {i for i in ids if fdp.ConsumeIntInRange(0, 15) == 0}
    include, skip = fdp.ConsumeBool(), fdp.ConsumeBool()
    sm = toklane.StopMatcher(
        tok, stop=stops, stop_token_ids=stop_ids, include_stop_str_in_output=include, skip_special_tokens=skip
    )
    texts, last = [], None
    for chunk in _chunks(fdp, ids):
        last = sm.step(chunk)
        texts.append(last.text)
        if last.stopped:
            break
    else:
        last = sm.flush()
        texts.append(last.text)
    expect, stop, token = stop_ref(tok, ids, stops, stop_ids, include, skip)
    assert "".join(texts) == expect, (ids, stops)
    assert (last.stop, last.token_index) == (stop, token), (ids, stops)


@functools.cache
def _seed_files() -> dict[str, bytes]:
    """Small valid files of each format the loader reads (a 300-token byte-level BPE)."""
    import base64

    ranks = [bytes([b]) for b in range(256)] + [b"ab", b"abc", b" a", b"th", b"the", b" the", b"in", b"ing"]
    ranks += [bytes([0xC3, b]) for b in range(0x80, 0x80 + 36)]
    tiktoken = b"".join(base64.b64encode(t) + b" " + str(r).encode() + b"\n" for r, t in enumerate(ranks))
    pattern = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
    tekken = {
        "config": {
            "pattern": pattern,
            "num_vocab_tokens": len(ranks),
            "default_vocab_size": len(ranks) + 4,
            "default_num_special_tokens": 4,
            "version": "v7",
        },
        "vocab": [{"rank": r, "token_bytes": base64.b64encode(t).decode()} for r, t in enumerate(ranks)],
        "special_tokens": [
            {"rank": i, "token_str": s, "is_control": True} for i, s in enumerate(["<unk>", "<s>", "</s>", "[INST]"])
        ],
    }  # fmt: skip
    return {"x.tiktoken": tiktoken, "tekken.json": json.dumps(tekken).encode()}


def loader(data: bytes) -> None:
    """A mutated tokenizer file loads, encodes and decodes, or raises ``TokenizerLoadError`` -- nothing else."""
    fdp = atheris.FuzzedDataProvider(data)
    name = fdp.PickValueInList(sorted(_seed_files()))
    body = bytearray(_seed_files()[name])
    for _ in range(fdp.ConsumeIntInRange(0, 8)):
        at = fdp.ConsumeIntInRange(0, len(body))
        op = fdp.ConsumeIntInRange(0, 2)
        if op == 0:  # overwrite
            body[at : at + 1] = fdp.ConsumeBytes(1)
        elif op == 1:  # insert
            body[at:at] = fdp.ConsumeBytes(fdp.ConsumeIntInRange(1, 16))
        else:  # delete
            del body[at : at + fdp.ConsumeIntInRange(1, 64)]
    with tempfile.TemporaryDirectory(prefix="toklane-fuzz-") as tmp:
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(bytes(body))
        try:
            tok = toklane.load_tokenizer(path)
        except toklane.TokenizerLoadError:
            return
        for text in ("the thing", "héllo ab", fdp.ConsumeUnicodeNoSurrogates(16)):
            # A mutated pattern may skip characters: a silly tokenizer, not a defect; totality is.
            ids = tok.encode(text)
            assert tok.count(text) == len(ids)
            tok.decode(ids)


def warm_up(name: str) -> None:
    """Load what a target's first inputs would (tokenizers, the corpus), so fuzzing time is spent fuzzing."""
    if name == "parsers":
        from tests.parsing.helpers import tokenizer

        for suite in _suites():
            tokenizer(suite.tokenizer)
    elif name in ("detokenizer", "stop_matcher"):
        for spec in DECODE_TOKENIZERS:
            toklane.load_tokenizer(spec).token_bytes_table  # noqa: B018  (builds the table)


TARGETS: dict[str, Callable[[bytes], None]] = {
    "parsers": parsers,
    "detokenizer": detokenizer,
    "stop_matcher": stop_matcher,
    "loader": loader,
}
