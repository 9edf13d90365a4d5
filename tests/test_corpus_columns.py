"""tokenize_corpus keeps every field of every record: one schema for all shards of a job (the union of
the records' fields, null where one lacks a field), values that share no type as their JSON text,
``keep_columns``, bad records (lone surrogates included) as ``file:line`` errors (issue 30, 1-4)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane.corpus import CorpusError, count_corpus, tokenize_corpus
from toklane.errors import InvalidArgumentError

from .test_cli import assert_clean_error, run
from .test_corpus import write_jsonl

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

IDS = ("input_ids", "num_tokens")


def shards_of(folder: Path) -> list[Any]:
    return [pq.read_table(p) for p in sorted(folder.glob("part-*.parquet"))]


def read_back(folder: Path) -> tuple[Any, list[dict[str, Any]]]:
    """The shards' one schema (asserted equal across shards) and all their rows, in order."""
    tables = shards_of(folder)
    schemas = {t.schema.remove_metadata() for t in tables}
    assert len(schemas) == 1, schemas
    for table in tables[1:]:  # field metadata (the JSON mark) too
        assert [f.metadata for f in table.schema] == [f.metadata for f in tables[0].schema]
    whole = pa.concat_tables(tables)  # fails on shards of different schemas
    return whole.schema, whole.to_pylist()


def same(expected: Any, got: Any) -> bool:
    """``got`` (read back from Arrow) holds ``expected`` (a JSON value): a missing key reads as
    null, integers may read as floats of the same value; nothing else may differ."""
    if expected is None:
        return got is None
    if isinstance(expected, bool) or isinstance(got, bool):
        return type(expected) is type(got) and expected == got
    if isinstance(expected, (int, float)):
        return isinstance(got, (int, float)) and expected == got
    if isinstance(expected, dict):
        return (
            isinstance(got, dict)
            and set(expected) <= set(got)
            and all(same(expected.get(k), v) for k, v in got.items())
        )
    if isinstance(expected, list):
        return isinstance(got, list) and len(got) == len(expected) and all(map(same, expected, got))
    return expected == got


def assert_shards_hold(records: list[dict[str, Any]], folder: Path, stats: Any, model: str = "qwen3.6") -> None:
    """The union of the shards read back is ``records`` plus their ids, field for field."""
    tok = toklane.load_tokenizer(model)
    schema, rows = read_back(folder)
    keys = list(dict.fromkeys(k for r in records for k in r))
    assert schema.names == [*keys, *IDS]
    assert list(stats.columns) == keys
    as_json = {f.name for f in schema if (f.metadata or {}).get(b"toklane") == b"json"}
    assert as_json == set(stats.json_columns)
    assert len(rows) == len(records) == stats.written
    for record, row in zip(records, rows, strict=True):
        assert row["input_ids"] == tok.encode(record["text"]) and row["num_tokens"] == len(row["input_ids"])
        for key in keys:
            got = row[key]
            if key in as_json and got is not None:
                got = json.loads(got)
            assert same(record.get(key), got), (key, record.get(key), row[key])
    for key in keys:  # no column is JSON text when its values share an obvious type
        kinds = {type(r[key]) for r in records if r.get(key) is not None}
        if kinds and (kinds <= {str} or kinds <= {bool}):
            assert key not in as_json, key


# JSON values of every kind, nested a little: the fields a real corpus carries beside its text.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.integers(-1000, 1000),
    st.floats(allow_nan=False),
    st.text(max_size=6),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "ü"]), inner, max_size=3),
    max_leaves=6,
)
records = st.lists(
    st.fixed_dictionaries(
        {"text": st.text(max_size=12)},
        optional={
            "id": st.integers(0, 10**6),
            "meta": values,
            "tag": st.text(max_size=5),
            "flag": st.booleans(),
            "score": st.integers(0, 9) | st.floats(0, 1),
            "": values,
        },
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=records, shard_bytes=st.sampled_from([60, 400, 1 << 20]))
def test_shards_read_back_equal_the_records_for_random_fields(rows, shard_bytes):
    with tempfile.TemporaryDirectory() as tmp:
        src = write_jsonl(Path(tmp) / "in.jsonl", rows)
        stats = tokenize_corpus(
            src, Path(tmp) / "out", "qwen3.6", text_field="text", workers=1, shard_bytes=shard_bytes
        )
        assert_shards_hold(rows, Path(tmp) / "out", stats)


@settings(max_examples=examples(3), deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=records)
def test_two_workers_write_the_same_union_schema(rows):
    with tempfile.TemporaryDirectory() as tmp:
        src = write_jsonl(Path(tmp) / "in.jsonl", rows * 3)
        one = tokenize_corpus(src, Path(tmp) / "one", "qwen3.6", text_field="text", workers=1, shard_bytes=200)
        two = tokenize_corpus(src, Path(tmp) / "two", "qwen3.6", text_field="text", workers=2, shard_bytes=200)
        assert_shards_hold(rows * 3, Path(tmp) / "two", two)
        for a, b in zip(one.shards, two.shards, strict=True):
            assert pq.read_table(a).equals(pq.read_table(b), check_metadata=True)


def test_a_field_first_seen_in_a_later_record_is_in_every_shard(tmp_path):
    # the example, and its larger form: ~1 record in 100 carries `messages`
    write_jsonl(tmp_path / "r.jsonl", [{"text": "a"}, {"text": "b", "extra": 1}])
    stats = tokenize_corpus(tmp_path / "r.jsonl", tmp_path / "o", "qwen3.6", text_field="text", workers=1)
    assert pq.read_table(stats.shards[0]).to_pylist() == [
        {"text": "a", "extra": None, "input_ids": [64], "num_tokens": 1},
        {"text": "b", "extra": 1, "input_ids": [65], "num_tokens": 1},
    ]
    rows = [
        {"text": f"record {i}"} | ({"messages": [{"role": "user", "content": f"q{i}"}]} if i % 100 == 7 else {})
        for i in range(2000)
    ]
    write_jsonl(tmp_path / "big.jsonl", rows)
    stats = tokenize_corpus(tmp_path / "big.jsonl", tmp_path / "big", "qwen3.6", text_field="text", shard_bytes=2000)
    assert len(stats.shards) > 10 and stats.columns == ("text", "messages") and not stats.notes
    assert_shards_hold(rows, tmp_path / "big", stats)
    assert pq.read_table(tmp_path / "big").num_rows == 2000  # the folder reads as one dataset


def test_values_of_different_kinds_are_kept_as_json_text(tmp_path):
    rows = [{"text": "a", "v": 1}, {"text": "b", "v": 2.5}, {"text": "c", "v": "x"}, {"text": "d", "v": None}]
    write_jsonl(tmp_path / "m.jsonl", rows)
    stats = tokenize_corpus(tmp_path / "m.jsonl", tmp_path / "o", "qwen3.6", text_field="text", workers=1)
    table = pq.read_table(stats.shards[0])
    assert table.column("v").to_pylist() == ["1", "2.5", '"x"', None]
    assert table.schema.field("v").metadata == {b"toklane": b"json"} and stats.json_columns == ("v",)
    assert "'v'" in stats.notes[0] and "JSON text" in stats.notes[0]
    proc = run(
        "tokenize",
        str(tmp_path / "m.jsonl"),
        "--model",
        "qwen3.6",
        "--text-field",
        "text",
        "--output",
        str(tmp_path / "cli"),
        "--no-progress",
    )
    assert proc.returncode == 0 and "toklane: warning: column 'v'" in proc.stderr, proc.stderr


def test_the_json_decision_holds_for_every_shard_of_the_job(tmp_path):
    # shard 0 sees only integers, the last only text; the job settles on JSON text for all of them
    rows = [{"text": f"t{i}", "n": i, "obj": {} if i < 30 else {"k": i}} for i in range(60)] + [
        {"text": "last", "n": "sixty", "obj": {"k": 1, "z": [1]}}
    ]
    write_jsonl(tmp_path / "in.jsonl", rows)
    stats = tokenize_corpus(tmp_path / "in.jsonl", tmp_path / "o", "qwen3.6", text_field="text", shard_bytes=300)
    assert len(stats.shards) > 5 and stats.json_columns == ("n",)
    schema, got = read_back(tmp_path / "o")
    assert schema.field("obj").type == pa.struct([("k", pa.int64()), ("z", pa.list_(pa.int64()))])  # {} fits it
    assert [g["n"] for g in got[:3]] == ["0", "1", "2"] and got[-1]["n"] == '"sixty"'
    assert_shards_hold(rows, tmp_path / "o", stats)


def test_integers_beyond_int64_and_beside_floats_are_not_rounded(tmp_path):
    rows = [{"text": "a", "big": 2**64, "mix": 2**53 + 1}, {"text": "b", "big": 1, "mix": 0.5}]
    write_jsonl(tmp_path / "in.jsonl", rows)
    stats = tokenize_corpus(tmp_path / "in.jsonl", tmp_path / "o", "qwen3.6", text_field="text", workers=1)
    table = pq.read_table(stats.shards[0])
    assert table.column("big").to_pylist() == [str(2**64), "1"]
    assert table.column("mix").to_pylist() == [str(2**53 + 1), "0.5"]


def test_keep_columns(tmp_path):
    rows = [{"id": 1, "text": "a b", "meta": {"x": 1}}, {"id": 2, "text": "c", "extra": True}]
    write_jsonl(tmp_path / "in.jsonl", rows)
    src = tmp_path / "in.jsonl"
    only_id = tokenize_corpus(src, tmp_path / "id", "qwen3.6", text_field="text", workers=1, keep_columns=["id"])
    assert pq.read_table(only_id.shards[0]).column_names == ["id", *IDS] and only_id.columns == ("id",)
    none = tokenize_corpus(src, tmp_path / "none", "qwen3.6", text_field="text", workers=1, keep_columns=[])
    assert pq.read_table(none.shards[0]).to_pylist() == [
        {"input_ids": toklane.load_tokenizer("qwen3.6").encode(r["text"]), "num_tokens": n}
        for r, n in zip(rows, (2, 1), strict=True)
    ]
    typo = tokenize_corpus(src, tmp_path / "typo", "qwen3.6", text_field="text", workers=1, keep_columns=["ids", "id"])
    assert typo.columns == ("id",) and typo.notes == ("no record has the column 'ids'",)
    for bad in ("id", ["input_ids"], [""], [3]):
        with pytest.raises(InvalidArgumentError, match="keep_columns"):
            tokenize_corpus(src, tmp_path / "bad", "qwen3.6", text_field="text", workers=1, keep_columns=bad)
    # Parquet: only the kept columns (and the field) are read
    pq.write_table(pa.table({"text": ["x y", "z"], "big": [b"\0" * 10, b"1"], "id": [7, 8]}), tmp_path / "p.parquet")
    out = tokenize_corpus(tmp_path / "p.parquet", tmp_path / "pq", "qwen3.6", text_field="text", keep_columns=["id"])
    assert pq.read_table(out.shards[0]).column_names == ["id", *IDS]
    cli = ["tokenize", str(src), "--model", "qwen3.6", "--text-field", "text", "--no-progress"]
    proc = run(*cli, "--output", str(tmp_path / "cli"), "--columns", "id,meta", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["columns"] == ["id", "meta"], proc.stderr
    proc = run(*cli, "--output", str(tmp_path / "c2"), "--columns", "")
    assert proc.returncode == 0 and pq.read_table(tmp_path / "c2").column_names == list(IDS)


def test_a_parquet_file_without_the_field_is_an_error_in_every_job(tmp_path):
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"body": ["hello"], "other": ["world wide"]}), path)
    for job in (
        lambda w: count_corpus(path, "qwen3.6", text_field="text", workers=w),
        lambda w: tokenize_corpus(path, tmp_path / f"o{w}", "qwen3.6", text_field="text", workers=w),
        lambda w: tokenize_corpus(path, tmp_path / f"m{w}", "qwen3.6", messages_field="messages", workers=w),
    ):
        for workers in (1, 2):
            with pytest.raises(CorpusError, match=r"no column '(text|messages)' \(columns: body, other\)"):
                job(workers)
    assert not list(tmp_path.glob("o*/part-*"))
    proc = run("tokenize", str(path), "--model", "qwen3.6", "--text-field", "text", "--output", str(tmp_path / "c"))
    assert_clean_error(proc, "no column 'text'")


SURROGATES = [
    (b'{"text": "a\\ud800b"}', "field 'text' holds a lone surrogate (U+D800 at index 1)"),
    (b'{"text": "ok", "meta": {"k": ["x", "\\uDC00"]}}', "field 'meta'.k[1] holds a lone surrogate (U+DC00"),
    (b'{"text": "raw \xed\xa0\x80 bytes"}', "field 'text' holds a lone surrogate (U+D800 at index 4)"),
    (b'{"text": "ok", "\\ud801": 1}', "the record has a key holding a lone surrogate"),
]


@pytest.mark.parametrize(("line", "reason"), SURROGATES)
def test_a_lone_surrogate_is_a_bad_record_in_count_and_tokenize(tmp_path, line, reason):
    good = [b'{"text": "emoji \\ud83d\\ude00"}', b'{"text": "not an escape: \\\\ud800"}']
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join([good[0], line, good[1]]) + b"\n")
    tok = toklane.load_tokenizer("qwen3.6")
    expected_tokens = len(tok.encode("emoji 😀")) + len(tok.encode("not an escape: \\ud800"))
    jobs = {
        "count": lambda **kw: count_corpus(path, "qwen3.6", text_field="text", workers=1, **kw),
        "tokenize": lambda **kw: tokenize_corpus(
            path, tmp_path / "o", "qwen3.6", text_field="text", workers=1, overwrite=True, **kw
        ),
    }
    for job in jobs.values():
        with pytest.raises(CorpusError, match=r"s\.jsonl:2: "):
            job()
        stats = job(on_error="skip")
        assert stats.records == 2 and stats.tokens == expected_tokens
        assert [(Path(p).name, n) for p, n, _ in stats.errors] == [("s.jsonl", 2)] and reason in stats.errors[0][2]
    proc = run("count", str(path), "--model", "qwen3.6", "--text-field", "text")
    assert_clean_error(proc, f"s.jsonl:2: {reason}")


@pytest.mark.parametrize("workers", [1, 2])
def test_an_object_key_holding_only_empty_objects_is_never_dropped(tmp_path, workers):
    """A shard whose ``meta`` objects are ``{"a": {}}`` writes them as JSON text (Parquet has no empty
    struct); another gives ``meta`` a struct type without ``a``: the job keeps ``a`` (JSON text)."""
    rows = [{"text": "x", "meta": {"a": {}}}] * 3 + [{"text": "y", "meta": {"b": 1, "c": "z"}}] * 40
    write_jsonl(tmp_path / "r.jsonl", rows)
    stats = tokenize_corpus(
        tmp_path / "r.jsonl", tmp_path / "o", "qwen3.6", text_field="text", workers=workers, shard_bytes=100
    )
    assert len(stats.shards) > 1
    assert_shards_hold(rows, tmp_path / "o", stats)
    assert pq.read_table(tmp_path / "o").column("meta").to_pylist()[0] in ('{"a": {}}', '{"a":{}}')
