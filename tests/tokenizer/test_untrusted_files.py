"""Untrusted tokenizer files fail cleanly: TokenizerLoadError naming the problem, never a hang.

Malformed files are written from the real bundled ones (Mistral's tekken.json,
DeepSeek's tokenizer.json, Qwen's .tiktoken ranks) by mutating one field each.
Files that could hang or exhaust memory (a FIFO, ``/dev/zero``, a tiny file
declaring a 10^20-token vocabulary) are loaded in a subprocess with a timeout.
Hypothesis mutates small valid tekken.json and .tiktoken files: each either
loads and round-trips text, or raises TokenizerLoadError -- nothing else.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane.tokenizer import assembly, bundled, files, patterns, user_files
from toklane.tokenizer.bytelevel import bytes_to_token_string

ROUND_TRIP = [
    files.PROBE_TEXT,
    "The quick brown fox jumps over the lazy dog.\n\n  indented\tcode();",
    "héllo wörld — ça va? 日本語のテキスト 😀👍🏽",
]


def _tekken_path() -> Path:
    return bundled.package_dir("mistral_common", "mistral-common", extra="mistral") / "data" / "tekken_240718.json"


@pytest.fixture(scope="module")
def tekken_small() -> dict[str, Any]:
    """The real tekken.json cut down to its 256 byte tokens and 744 merges, with an
    explicit list of 20 control tokens (as tekken v7+ files carry)."""
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    data = json.loads(_tekken_path().read_text(encoding="utf-8"))
    n_ordinary, n_special = 1000, 20
    specials = [
        {"rank": int(t["rank"]), "token_str": str(t["token_str"]), "is_control": True}
        for t in Tekkenizer.DEPRECATED_SPECIAL_TOKENS[:n_special]
    ]
    config = dict(data["config"], default_vocab_size=n_special + n_ordinary, default_num_special_tokens=n_special)
    return {"config": config, "vocab": data["vocab"][: n_ordinary + 50], "special_tokens": specials}


@pytest.fixture(scope="module")
def deepseek_text(deepseek_json) -> str:
    return deepseek_json.read_text(encoding="utf-8")


_counter = itertools.count()


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    """A fresh file per call (a distinct path: the path cache never answers for an earlier one)."""
    folder = tmp_path / f"f{next(_counter)}"
    folder.mkdir()
    path = folder / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def _load_error(path: Path) -> toklane.TokenizerLoadError:
    with pytest.raises(toklane.TokenizerLoadError) as info:
        toklane.load_tokenizer(str(path))
    return info.value


def _assert_round_trips(tok: toklane.Tokenizer) -> None:
    for text in ROUND_TRIP:
        assert tok.decode(tok.encode(text)) == text


# --------------------------------------------------------------------------- tekken.json


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A mutation setting ``path`` (dotted, ``[k]`` indexes) to ``value``; ``...`` deletes it."""

    def mutate(data: dict[str, Any]) -> None:
        keys: list[Any] = []
        for part in path.replace("[", ".[").split("."):
            keys.append(int(part[1:-1]) if part.startswith("[") else part)
        node: Any = data
        for key in keys[:-1]:
            node = node[key]
        if isinstance(node, list) or isinstance(keys[-1], int):
            node[keys[-1]] = dict(node[keys[-1]]) if value is ... else value
        elif value is ...:
            del node[keys[-1]]
        else:
            node[keys[-1]] = value

    return mutate


def _byte_token_gone(data: dict[str, Any]) -> None:
    """Byte 0xC3 (the lead byte of é) replaced by a new multi-byte token: every size still adds up."""
    data["vocab"][0xC3] = dict(data["vocab"][0xC3], token_bytes=base64.b64encode(b"\xc3\xa9\xc3\xa9!?").decode())


def _copy_entry(data: dict[str, Any]) -> None:
    data["vocab"][300] = dict(data["vocab"][300], token_bytes=data["vocab"][299]["token_bytes"])


TEKKEN_CASES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("no config", _set("config", ...), "config must be a JSON object"),
    ("config not an object", _set("config", [1]), "config must be a JSON object"),
    ("pattern not a string", _set("config.pattern", 5), "config.pattern must be a string"),
    ("pattern does not compile", _set("config.pattern", "(["), "building the BPE engine failed"),
    ("pattern misses text", _set("config.pattern", r"\p{L}+"), "does not cover plain text"),
    ("pattern matches empty", _set("config.pattern", "a*"), "pattern can match the empty string"),
    ("possessive pattern matches empty", _set("config.pattern", r"\p{L}+|\s?+"), "pattern can match the empty string"),
    # A group Python's re cannot read: tiktoken's panic on the probe's empty text is the load error.
    ("pattern matches empty, unread", _set("config.pattern", r"(?<x>\p{L}*)"), "probe text failed (PanicException"),
    ("num special a string", _set("config.default_num_special_tokens", "20"), "default_num_special_tokens must be"),
    ("num special negative", _set("config.default_num_special_tokens", -1), "default_num_special_tokens is -1"),
    ("num special huge", _set("config.default_num_special_tokens", 10**9), "default_num_special_tokens is 1000000000"),
    ("vocab size 1e20 (float)", _set("config.default_vocab_size", 1e20), "default_vocab_size must be an integer"),
    ("vocab size 10**20", _set("config.default_vocab_size", 10**20), "default_vocab_size is 1000"),
    ("vocab size past the vocab", _set("config.default_vocab_size", 20 + 1051), "default_vocab_size is 1071"),
    ("vocab size below 256 bytes", _set("config.default_vocab_size", 100), "default_vocab_size is 100"),
    ("vocab not a list", _set("vocab", {}), "vocab must be a JSON array"),
    ("vocab entry not an object", _set("vocab[5]", "x"), "vocab[5] must be a JSON object"),
    ("rank out of place", _set("vocab[5].rank", 7), "vocab[5].rank must be 5"),
    ("rank a float", _set("vocab[6].rank", 6.0), "vocab[6].rank must be 6"),
    ("token bytes not base64", _set("vocab[300].token_bytes", "!!not base64"), "vocab[300].token_bytes is not valid"),
    ("token bytes missing", _set("vocab[301].token_bytes", ...), "vocab[301].token_bytes must be a string"),
    ("token bytes empty", _set("vocab[302].token_bytes", ""), "vocab[302].token_bytes must not be empty"),
    ("token repeated", _copy_entry, "vocab[300].token_bytes repeats the token of vocab[299]"),
    ("a byte token missing", _byte_token_gone, "lacks single-byte tokens 0xC3"),
    ("specials not a list", _set("special_tokens", 5), "special_tokens must be a JSON array"),
    ("special rank repeated", _set("special_tokens[3].rank", 2), "special_tokens[3].rank 2 is used twice"),
    ("special rank past the specials", _set("special_tokens[3].rank", 5000), "special_tokens[3].rank is 5000"),
    ("special name empty", _set("special_tokens[4].token_str", ""), "special_tokens[4].token_str must not be empty"),
    ("special name repeated", _set("special_tokens[4].token_str", "<s>"), "'<s>' is used twice"),
    ("special name not a string", _set("special_tokens[4].token_str", None), "special_tokens[4].token_str must be a"),
    ("special entry not an object", _set("special_tokens[0]", 3), "special_tokens[0] must be a JSON object"),
]


@pytest.mark.parametrize("mutate, expected", [c[1:] for c in TEKKEN_CASES], ids=[c[0] for c in TEKKEN_CASES])
def test_malformed_tekken_json(tmp_path, tekken_small, mutate, expected):
    data = json.loads(json.dumps(tekken_small))
    mutate(data)
    path = _write(tmp_path, "tekken.json", json.dumps(data))
    error = _load_error(path)
    assert expected in str(error) and str(path) in str(error), str(error)
    assert any(w in str(error) for w in ("not a valid tekken.json", "failed", "probe", "pre-tokenisation pattern"))


def test_small_tekken_json_loads_and_round_trips(tmp_path, tekken_small):
    tok = toklane.load_tokenizer(str(_write(tmp_path, "tekken.json", json.dumps(tekken_small))))
    assert tok.vocab_size == 1020 and tok.token_to_id("<s>") == 1 and tok.token_to_id("[INST]") == 3
    _assert_round_trips(tok)
    assert tok.encode("<s>\x00") == [1, 20]  # control tokens first, then the byte ranks


def test_tekken_json_text_faults(tmp_path, tekken_small):
    text = json.dumps(tekken_small)
    cases = {
        "truncated": (text[: len(text) // 2], "invalid JSON"),
        "not UTF-8": (b'{"config": {}, "vocab": "\xff\xfe"}', "not UTF-8"),
        "a JSON list": (json.dumps([tekken_small]), "tekken.json must be a JSON object"),
        "nested 100k deep": ('{"config": {"vocab": ' + "[" * 100_000 + "]" * 100_000 + "}}", "nested too deeply"),
    }
    for name, (content, expected) in cases.items():
        error = _load_error(_write(tmp_path, "tekken.json", content))
        assert expected in str(error), (name, str(error))


def test_tekken_without_special_list_uses_the_built_in_one(tmp_path, tekken_small):
    data = dict(tekken_small)
    del data["special_tokens"]
    tok = toklane.load_tokenizer(str(_write(tmp_path, "tekken.json", json.dumps(data))))
    assert tok.token_to_id("[INST]") == 3
    _assert_round_trips(tok)


# --------------------------------------------------------------------------- tokenizer.json


def _hf(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return _set(path, value)


def _drop_byte_token(data: dict[str, Any]) -> None:
    del data["model"]["vocab"][bytes_to_token_string(b"\xc3")]


def _bad_merge(data: dict[str, Any]) -> None:
    data["model"]["merges"].append("zzqq qqzz")


def _huge_vocab_id(data: dict[str, Any]) -> None:
    data["model"]["vocab"]["Ġthe"] = 10**12


def _negative_vocab_id(data: dict[str, Any]) -> None:
    data["model"]["vocab"]["Ġthe"] = -5


HF_CASES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("no model", _hf("model", ...), "model must be a JSON object"),
    ("unknown model type", _hf("model.type", "Magic"), "model.type must be one of"),
    ("vocab a list", _hf("model.vocab", [1, 2]), "model.vocab must be a JSON object"),
    ("negative id", _negative_vocab_id, "model.vocab['Ġthe'] must be a non-negative integer id"),
    ("id 10**12", _huge_vocab_id, "token id 1000000000000 is far past"),
    ("added id 2**31 (a 2-billion-id space)", _hf("added_tokens[0].id", 2**31), "added_tokens[0].id is 2147483648"),
    ("added id 10**6 in a 129K file", _hf("added_tokens[0].id", 10**6), "token id 1000000 is far past"),
    ("added content empty", _hf("added_tokens[1].content", ""), "added_tokens[1].content must not be empty"),
    ("added tokens an object", _hf("added_tokens", {}), "added_tokens must be a JSON array"),
    ("byte token missing", _drop_byte_token, "lacks byte-level tokens for bytes 0xC3"),
    ("merge of unknown tokens", _bad_merge, "building it failed"),
]


@pytest.mark.parametrize("mutate, expected", [c[1:] for c in HF_CASES], ids=[c[0] for c in HF_CASES])
def test_malformed_tokenizer_json(tmp_path, deepseek_text, mutate, expected):
    data = json.loads(deepseek_text)
    mutate(data)
    path = _write(tmp_path, "tokenizer.json", json.dumps(data, ensure_ascii=False))
    error = _load_error(path)
    assert expected in str(error) and "not a valid tokenizer.json" in str(error), str(error)


# --------------------------------------------------------------------------- .tiktoken


@pytest.fixture(scope="module")
def qwen_ranks_lines(qwen_package) -> list[bytes]:
    return (qwen_package / "resources" / "qwen.tiktoken").read_bytes().splitlines()


def _byte_line(lines: list[bytes], byte: int) -> int:
    token = base64.b64encode(bytes([byte]))
    return next(k for k, line in enumerate(lines) if line.split()[0] == token)


def test_malformed_tiktoken_files(tmp_path, qwen_ranks_lines):
    lines = qwen_ranks_lines
    byte_c3 = _byte_line(lines, 0xC3)
    rank_c3 = lines[byte_c3].split()[1]

    def edited(k: int, line: bytes) -> bytes:
        return b"\n".join([*lines[:k], line, *lines[k + 1 :]]) + b"\n"

    cases = {
        "three fields": (edited(10, lines[10] + b" 7"), "line 11 is not '<base64> <rank>' (3 fields)"),
        "bad base64": (edited(11, b"@@@@ 11"), "line 12: token b'@@@@' is not valid base64"),
        "rank not a number": (edited(12, lines[12].split()[0] + b" twelve"), "line 13: rank b'twelve' is not a small"),
        "rank huge": (edited(13, lines[13].split()[0] + b" 99999999999"), "line 14: rank 99999999999 is past"),
        "token twice": (edited(14, lines[15]), "line 16: token"),
        "rank twice": (edited(500, lines[500].split()[0] + b" 499"), "rank 499 is used twice"),
        "a byte token missing": (
            edited(byte_c3, base64.b64encode(b"\xc3\xa9\xc3\xa9!?") + b" " + rank_c3),
            "lack single-byte tokens 0xC3",
        ),
        "empty": (b"", "no ranks in file"),
        "binary": (bytes(range(256)) * 4, "line 1"),
    }
    for name, (content, expected) in cases.items():
        path = _write(tmp_path, "qwen.tiktoken", content)
        error = _load_error(path)
        assert expected in str(error) and str(path) in str(error), (name, str(error))


# --------------------------------------------------------------------------- not regular files


def test_oversized_file_is_refused_without_reading_it(tmp_path):
    path = tmp_path / "tokenizer.json"
    with open(path, "wb") as f:
        f.truncate(files.MAX_FILE_BYTES + 1)  # sparse: no disk used
    assert "over the 268,435,456-byte limit" in str(_load_error(path))
    folder = tmp_path / "repo"
    folder.mkdir()
    with open(folder / "big.tiktoken", "wb") as f:
        f.truncate(files.MAX_FILE_BYTES + 1)
    assert "over the" in str(_load_error(folder))


_HANG_SCRIPT = textwrap.dedent(
    """
    import json, os, sys, toklane
    cases = json.loads(sys.argv[1])
    for name, spec in cases:
        try:
            toklane.load_tokenizer(spec)
            print(name, "LOADED", flush=True)
        except toklane.TokenizerLoadError as exc:
            print(name, "TokenizerLoadError", str(exc).replace(chr(10), " "), flush=True)
    """
)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_dev_zero_and_absurd_sizes_fail_fast(tmp_path, tekken_small):
    fifo = tmp_path / "tokenizer.json"
    os.mkfifo(fifo)
    fifo_folder = tmp_path / "fifo-repo"
    fifo_folder.mkdir()
    os.mkfifo(fifo_folder / "ranks.tiktoken")
    zero_link = tmp_path / "zero.tiktoken"
    zero_link.symlink_to("/dev/zero")
    huge = dict(tekken_small, config=dict(tekken_small["config"], default_vocab_size=1e20))
    huge_path = _write(tmp_path, "tekken.json", json.dumps(huge))
    cases = [
        ("fifo", str(fifo)),
        ("fifo-in-folder", str(fifo_folder)),
        ("dev-zero", "/dev/zero"),
        ("dev-zero-link", str(zero_link)),
        ("vocab-1e20", str(huge_path)),
    ]
    run = subprocess.run(
        [sys.executable, "-c", _HANG_SCRIPT, json.dumps(cases)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert run.returncode == 0, run.stderr[-2000:]
    out = dict(line.split(" ", 1) for line in run.stdout.splitlines())
    assert set(out) == {name for name, _ in cases}, run.stdout
    assert "a FIFO (named pipe), not a regular file" in out["fifo"]
    assert "ranks.tiktoken" in out["fifo-in-folder"] and "FIFO" in out["fifo-in-folder"]
    assert "/dev/zero is a character device, not a regular file" in out["dev-zero"]
    assert "a character device" in out["dev-zero-link"]
    assert "config.default_vocab_size must be an integer" in out["vocab-1e20"]


# --------------------------------------------------------------------------- hypothesis

_JSON_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, 255, 256, 1019, 1020, 1021, 10**20]),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.sampled_from(["", "AA==", "w6k=", "!!", "(", "a*", r"\s+|\S+", "<s>", "[INST]"]),
)
_JSON_VALUE = st.recursive(
    _JSON_LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


def _paths_of(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Mutable locations of a small tekken document (vocab entries sampled, not all 1050)."""
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths_of(value, (*prefix, key))
    elif isinstance(node, list):
        picks = range(len(node)) if len(node) <= 25 else [0, 1, 2, 100, 195, 255, 256, 300, 999, 1000, 1049]
        for k in picks:
            out += _paths_of(node[k], (*prefix, k))
    return out


@st.composite
def _tekken_mutations(draw: st.DrawFn, base: dict[str, Any]) -> dict[str, Any]:
    data = json.loads(json.dumps(base))
    locations = _paths_of(data)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        where = draw(st.sampled_from(locations))
        node: Any = data
        try:
            for key in where[:-1]:
                node = node[key]
            if isinstance(node, dict) and draw(st.booleans()) and draw(st.booleans()):
                node.pop(where[-1], None)
            else:
                node[where[-1]] = draw(_JSON_VALUE)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation replaced a parent
    return data


@pytest.fixture(scope="module")
def tekken_base(tekken_small) -> dict[str, Any]:
    return tekken_small


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_tekken_loads_or_fails_cleanly(tmp_path, tekken_base, data):
    doc = data.draw(_tekken_mutations(tekken_base))
    path = _write(tmp_path, "tekken.json", json.dumps(doc))
    try:
        tok = toklane.load_tokenizer(str(path))
    except toklane.TokenizerLoadError as exc:
        event(f"rejected: {exc.reason.split(':')[0][:40]}")
        return
    event("loaded")
    _assert_round_trips(tok)


@pytest.fixture(scope="module")
def small_ranks_file(tekken_small) -> bytes:
    """A valid small ranks file: the 1000 tekken ranks above, as `.tiktoken` lines."""
    return b"".join(f"{e['token_bytes']} {e['rank']}\n".encode() for e in tekken_small["vocab"][:1000])


_LINE_EDIT = st.one_of(
    st.tuples(st.just("delete"), st.integers(0, 999)),
    st.tuples(st.just("copy"), st.integers(0, 999), st.integers(0, 999)),
    st.tuples(st.just("rank"), st.integers(0, 999), st.one_of(st.integers(-5, 3000).map(str), st.text(max_size=6))),
    st.tuples(st.just("token"), st.integers(0, 999), st.binary(max_size=6).map(lambda b: base64.b64encode(b).decode())),
    st.tuples(st.just("garbage"), st.integers(0, 999), st.binary(max_size=12)),
    st.tuples(st.just("wrap"), st.integers(0, 999), st.sampled_from([b" ", b"\t", b"\r", b"\n", b"\x0b", b""])),
    st.tuples(st.just("spaces"), st.integers(0, 999), st.sampled_from([b"  ", b"\t", b" \r", b"\xc2\xa0"])),
)


def _mutated(small_ranks_file: bytes, edits: list[tuple[Any, ...]]) -> bytes:
    lines = small_ranks_file.split(b"\n")
    for edit in edits:
        kind, k = edit[0], edit[1]
        if k >= len(lines):
            continue
        if kind == "delete":
            del lines[k]
        elif kind == "copy":
            lines[k] = lines[min(edit[2], len(lines) - 1)]
        elif kind == "rank":
            lines[k] = lines[k].split(b" ")[0] + b" " + edit[2].encode("utf-8", "replace")
        elif kind == "token":
            lines[k] = edit[2].encode() + b" " + [*lines[k].split(b" "), b""][1]
        elif kind == "wrap":
            lines[k] = edit[2] + lines[k] + edit[2]
        elif kind == "spaces":
            lines[k] = lines[k].replace(b" ", edit[2])
        else:
            lines[k] = edit[2]
    return b"\n".join(lines)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(_LINE_EDIT, min_size=1, max_size=3))
def test_mutated_tiktoken_ranks_load_or_fail_cleanly(tmp_path, small_ranks_file, edits):
    data = _mutated(small_ranks_file, edits)
    path = _write(tmp_path, "small.tiktoken", data)
    try:
        ranks = user_files.read_tiktoken_ranks(path)
        engine = assembly.ranks_engine("mutated", patterns.CL100K, ranks, source=str(path))
    except toklane.TokenizerLoadError as exc:
        event(f"rejected: {exc.reason.split(':')[0][:40]}")
        return
    event("loaded")
    for text in ROUND_TRIP:
        assert engine.decode_bytes(engine.encode_ordinary(text)) == text.encode()


def _line_reader(data: bytes) -> dict[bytes, int] | str:
    try:
        return files._parse_tiktoken_line_by_line(data, "f")
    except toklane.TokenizerLoadError as exc:
        return exc.reason


_RANK_EDIT = st.tuples(st.just("rank"), st.integers(0, 999), st.integers(0, 1100).map(str))  # often still readable


@settings(max_examples=examples(300), deadline=None)
@given(
    edits=st.lists(_LINE_EDIT, max_size=4) | st.lists(_RANK_EDIT, max_size=3),
    trailing=st.sampled_from([b"", b"\n", b"\n\n"]),
)
def test_tiktoken_fast_reader_reads_what_the_line_reader_reads(small_ranks_file, edits, trailing):
    data = _mutated(small_ranks_file.rstrip(b"\n"), edits) + trailing
    fast = files._parse_tiktoken_lines(data)
    if fast is None:
        event("line by line")
        return
    event("fast")
    got = _line_reader(data)
    assert fast == got and list(fast.items()) == list(got.items())


def test_tiktoken_fast_reader_takes_the_bundled_files(qwen_package, small_ranks_file):
    for data in (
        *(f.read_bytes() for f in (qwen_package / "resources").glob("*.tiktoken")),
        small_ranks_file,
        small_ranks_file.rstrip(b"\n"),
    ):
        fast = files._parse_tiktoken_lines(data)
        assert fast is not None and fast == _line_reader(data) and len(fast) >= 1000
    assert files._parse_tiktoken_lines(small_ranks_file.replace(b"\n", b"\r\n")) is None  # read line by line


_RANK_VALUE = st.one_of(
    st.integers(-3, 12), st.booleans(), st.floats(0, 10), st.just(1 << 70), st.just(-(1 << 70)), st.text(max_size=1)
)


@settings(max_examples=examples(300), deadline=None)
@given(values=st.lists(_RANK_VALUE, max_size=10), offset=st.integers(-2, 3), shuffle=st.randoms())
def test_ranks_range_check_agrees_with_its_definition(values, offset, shuffle):
    if shuffle.random() < 0.5:
        values = list(range(offset, offset + len(values)))  # often a valid table
        shuffle.shuffle(values)
    ranks = {bytes([k]): v for k, v in enumerate(values)}
    n = len(ranks)
    expected = n > 0 and all(type(v) is int for v in values) and sorted(values) == list(range(offset, offset + n))
    assert files._ranks_in_range(ranks, offset) == expected
