"""toklane.corpus.tokenize_corpus and `toklane tokenize --output`: Parquet shards, order, filter, resume."""

from __future__ import annotations

import itertools
import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane.corpus import CorpusError, count_corpus, tokenize_corpus
from toklane.corpus.inputs import expand_inputs, plan_splits
from toklane.errors import InvalidArgumentError

from .test_cli import assert_clean_error, run
from .test_corpus import MSGS, write_jsonl

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def rows_of(folder: Path) -> list[dict]:
    """Every row of the shards, in shard-name order."""
    return [r for shard in sorted(folder.glob("part-*.parquet")) for r in pq.read_table(shard).to_pylist()]


def corpus(tmp_path: Path) -> Path:
    words = ["alpha", "ünïcode", "日本語", "код", " x = f(y)\n", "🙂", "the"]
    rows = [
        {"id": i, "text": " ".join(words[(i * k) % len(words)] for k in range(i % 23)), "m": MSGS} for i in range(400)
    ]
    write_jsonl(tmp_path / "in" / "b.jsonl", rows[:300])
    write_jsonl(tmp_path / "in" / "a.jsonl", rows[300:])
    (tmp_path / "in" / "c.txt").write_text("a plain text file\nwith two lines", encoding="utf-8")
    return tmp_path / "in"


def test_shards_hold_input_columns_ids_and_counts_in_order(tmp_path):
    src = corpus(tmp_path)
    tok = toklane.load_tokenizer("qwen3.6")
    stats = tokenize_corpus(src, tmp_path / "out", "qwen3.6", text_field="text", workers=1, shard_bytes=4000)
    rows = rows_of(tmp_path / "out")
    expected = [json.loads(line) for f in ("a.jsonl", "b.jsonl") for line in (src / f).read_text().splitlines()]
    assert [r["id"] for r in rows[:-1]] == [e["id"] for e in expected]  # folder order: a, b, then c.txt
    for row, exp in zip(rows, expected, strict=False):
        assert row["text"] == exp["text"] and row["m"] == exp["m"]
        assert row["input_ids"] == tok.encode(exp["text"]) and row["num_tokens"] == len(row["input_ids"])
    last = rows[-1]
    assert last["path"] == str(src / "c.txt") and last["input_ids"] == tok.encode("a plain text file\nwith two lines")
    assert len(stats.shards) > 3 and stats.written == stats.records == 401 and stats.resumed == 0
    assert [Path(p).name for p in stats.shards] == [f"part-{i:05d}.parquet" for i in range(len(stats.shards))]
    assert stats.tokens == sum(r["num_tokens"] for r in rows)
    schema = pq.read_schema(stats.shards[0])
    assert schema.field("input_ids").type == pa.list_(pa.int32()) and schema.field("num_tokens").type == pa.int32()
    # the statistics are count_corpus's
    counted = count_corpus(src, "qwen3.6", text_field="text", workers=1)
    assert (counted.tokens, counted.records, counted.p50, counted.p99, counted.files) == (
        stats.tokens,
        stats.records,
        stats.p50,
        stats.p99,
        stats.files,
    )


def test_two_workers_write_the_same_shards_as_one(tmp_path):
    src = corpus(tmp_path)
    one = tokenize_corpus(src, tmp_path / "one", "llama3", text_field="text", workers=1, shard_bytes=3000)
    two = tokenize_corpus(src, tmp_path / "two", "llama3", text_field="text", workers=2, shard_bytes=3000)
    assert [Path(p).name for p in one.shards] == [Path(p).name for p in two.shards]
    for a, b in zip(one.shards, two.shards, strict=True):
        assert pq.read_table(a).equals(pq.read_table(b))
    assert one.to_json()["lengths"] == two.to_json()["lengths"] and one.files == two.files


def test_length_filter_leaves_out_and_counts(tmp_path):
    src = corpus(tmp_path)
    stats = tokenize_corpus(
        src / "b.jsonl", tmp_path / "out", "qwen3.6", text_field="text", workers=1, min_tokens=3, max_tokens=30
    )
    rows = rows_of(tmp_path / "out")
    assert rows and all(3 <= r["num_tokens"] <= 30 for r in rows)
    assert stats.written == len(rows) == stats.records - stats.over_max - stats.under_min
    assert stats.over_max > 0 and stats.under_min > 0
    with pytest.raises(InvalidArgumentError, match="min_tokens"):
        tokenize_corpus(src, tmp_path / "x", "qwen3.6", text_field="text", min_tokens=5, max_tokens=4)


def test_messages_are_rendered_and_encoded_like_encode_chat(tmp_path):
    src = corpus(tmp_path)
    tokenize_corpus(src / "a.jsonl", tmp_path / "out", "qwen3.6", messages_field="m", workers=1)
    ids = toklane.encode_chat(MSGS, "qwen3.6")
    assert {tuple(r["input_ids"]) for r in rows_of(tmp_path / "out")} == {tuple(ids)}
    # a vocabulary without the chat markers can count conversations but not encode them
    with pytest.raises(InvalidArgumentError, match=r"no .* chat markers"):
        tokenize_corpus(src / "a.jsonl", tmp_path / "o2", "cl100k_base", messages_field="m", workers=1)


def test_parquet_input_keeps_its_columns(tmp_path):
    table = pa.table({"k": list(range(120)), "text": [f"row {i} " * (i % 7) for i in range(120)]})
    pq.write_table(table, tmp_path / "d.parquet", row_group_size=25)
    tok = toklane.load_tokenizer("qwen3.6")
    stats = tokenize_corpus(tmp_path / "d.parquet", tmp_path / "out", "qwen3.6", text_field="text", shard_bytes=1)
    assert len(stats.shards) == 5  # one per row group at this shard size
    rows = rows_of(tmp_path / "out")
    assert [r["k"] for r in rows] == list(range(120))
    assert all(r["input_ids"] == tok.encode(r["text"]) for r in rows)


def test_resume_keeps_finished_shards_and_writes_the_rest(tmp_path):
    src = corpus(tmp_path)
    out = tmp_path / "out"
    first = tokenize_corpus(src, out, "qwen3.6", text_field="text", workers=1, shard_bytes=3000)
    reference = rows_of(out)
    # an interrupted run: one shard never renamed into place, a temporary file left behind
    lost = Path(first.shards[2])
    lost.rename(out / f".{lost.name}.tmp-12345")
    kept = {p: os.stat(p).st_mtime_ns for p in first.shards if p != str(lost)}
    again = tokenize_corpus(src, out, "qwen3.6", text_field="text", workers=1, shard_bytes=3000)
    assert again.resumed == len(first.shards) - 1 and rows_of(out) == reference
    assert {p: os.stat(p).st_mtime_ns for p in kept} == kept  # untouched
    assert not list(out.glob(".*tmp*")) and again.to_json()["lengths"] == first.to_json()["lengths"]
    assert again.files == first.files and again.written == first.written


def test_a_folder_with_another_jobs_shards_is_refused_unless_overwrite(tmp_path):
    src = corpus(tmp_path)
    out = tmp_path / "out"
    tokenize_corpus(src / "a.jsonl", out, "qwen3.6", text_field="text", workers=1)
    with pytest.raises(CorpusError, match="from a different job"):
        tokenize_corpus(src / "a.jsonl", out, "llama3", text_field="text", workers=1)
    stats = tokenize_corpus(src / "a.jsonl", out, "llama3", text_field="text", workers=1, overwrite=True)
    assert stats.resumed == 0 and rows_of(out)[0]["input_ids"] == toklane.load_tokenizer("llama3").encode(
        rows_of(out)[0]["text"]
    )
    (tmp_path / "file").write_text("x")
    with pytest.raises(CorpusError, match="is a file"):
        tokenize_corpus(src / "a.jsonl", tmp_path / "file", "qwen3.6", text_field="text")


def test_bad_records_fail_with_the_location_or_are_skipped(tmp_path):
    rows = [{"text": f"r{i}"} for i in range(50)]
    path = write_jsonl(tmp_path / "d.jsonl", [*rows, "{broken", {"other": 1}, *rows])
    with pytest.raises(CorpusError, match=r"d\.jsonl:51: not JSON"):
        tokenize_corpus(path, tmp_path / "out", "qwen3.6", text_field="text", workers=1, shard_bytes=200)
    assert not list((tmp_path / "out").glob("*.tmp*"))
    stats = tokenize_corpus(
        path, tmp_path / "out2", "qwen3.6", text_field="text", workers=2, shard_bytes=200, on_error="skip"
    )
    assert [(line, reason[:8]) for _, line, reason in stats.errors] == [(51, "not JSON"), (52, "no field")]
    assert stats.written == 100 and [r["text"] for r in rows_of(tmp_path / "out2")] == [r["text"] for r in rows] * 2


def test_an_input_column_named_like_an_output_is_an_error(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", [{"text": "x", "input_ids": [1]}])
    with pytest.raises(CorpusError, match="already has a column 'input_ids'"):
        tokenize_corpus(path, tmp_path / "out", "qwen3.6", text_field="text", workers=1)


# --------------------------------------------------------------------------- the split plan


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(st.text(alphabet="ab\u00e9\u65e5 ", max_size=30), max_size=12), min_size=1, max_size=3),
    st.integers(1, 200),
)
def test_splits_cover_every_line_once_at_line_ends(files, split_bytes):
    with tempfile.TemporaryDirectory() as d:
        for i, lines in enumerate(files):
            write_jsonl(Path(d) / f"f{i}.jsonl", [{"t": t} for t in lines])
        paths = expand_inputs(d)
        splits = plan_splits(paths, split_bytes)
        assert [s.index for s in splits] == list(range(len(splits)))
        for path in paths:
            pieces = [p for s in splits for p in s.pieces if p.path == path]
            data = Path(path).read_bytes()
            assert pieces[0].start == 0 and pieces[-1].stop == len(data)
            assert all(a.stop == b.start for a, b in itertools.pairwise(pieces))
            assert all(p.start == 0 or data[p.start - 1 : p.start] == b"\n" for p in pieces)
            assert b"".join(data[p.start : p.stop] for p in pieces) == data


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.text(max_size=30), st.just("<bad>")), min_size=1, max_size=40), st.integers(1, 300))
def test_tokenize_equals_a_line_by_line_reference(lines, shard_bytes):
    tok = toklane.load_tokenizer("qwen3.6")
    with tempfile.TemporaryDirectory() as d:
        path = write_jsonl(Path(d) / "d.jsonl", ["{" if t == "<bad>" else {"t": t} for t in lines])
        stats = tokenize_corpus(
            path, Path(d) / "o", "qwen3.6", text_field="t", workers=1, shard_bytes=shard_bytes, on_error="skip"
        )
        got = rows_of(Path(d) / "o")
    good = [t for t in lines if t != "<bad>"]
    assert [r["t"] for r in got] == good and [r["input_ids"] for r in got] == [tok.encode(t) for t in good]
    assert [line for _, line, _ in stats.errors] == [i + 1 for i, t in enumerate(lines) if t == "<bad>"]


# --------------------------------------------------------------------------- CLI


def test_cli_tokenize_writes_shards_and_resumes(tmp_path):
    src = corpus(tmp_path)
    args = ("tokenize", str(src / "a.jsonl"), "--model", "qwen3.6", "--text-field", "text", "--output")
    proc = run(*args, str(tmp_path / "out"), "--max-tokens", "20")
    assert proc.returncode == 0, proc.stderr
    stats = tokenize_corpus(src / "a.jsonl", tmp_path / "ref", "qwen3.6", text_field="text", max_tokens=20)
    assert f"wrote {stats.written:,} records to 1 shard in {tmp_path / 'out'}" in proc.stdout
    assert pq.read_table(tmp_path / "out").equals(pq.read_table(tmp_path / "ref"))
    again = run(*args, str(tmp_path / "out"), "--max-tokens", "20", "--json")
    assert json.loads(again.stdout)["resumed"] == 1
    assert_clean_error(run(*args, str(tmp_path / "out")), "from a different job")
    assert_clean_error(
        run("tokenize", str(src / "a.jsonl"), "--model", "qwen3.6", "--text-field", "text"), "pass --output DIR"
    )
    assert_clean_error(
        run("tokenize", "-", "--model", "qwen3.6", "--text-field", "text", "--output", str(tmp_path / "o3")),
        "stdin ('-') is not read",
    )


def test_cli_shard_mb_sets_the_shard_size(tmp_path):
    src = corpus(tmp_path) / "b.jsonl"
    size = os.path.getsize(src)
    args = ("tokenize", str(src), "--model", "qwen3.6", "--text-field", "text", "--workers", "1", "--json")
    proc = run(*args, "--output", str(tmp_path / "out"), "--shard-mb", str(size / 3 / (1 << 20)))
    assert proc.returncode == 0, proc.stderr
    ref = tokenize_corpus(src, tmp_path / "ref", "qwen3.6", text_field="text", shard_bytes=round(size / 3))
    assert len(json.loads(proc.stdout)["shards"]) == len(ref.shards) >= 3
    assert pq.read_table(tmp_path / "out").equals(pq.read_table(tmp_path / "ref"))
    default = tokenize_corpus(src, tmp_path / "one", "qwen3.6", text_field="text")
    assert len(default.shards) == 1
    for bad in ("0", "-1", "nan", "inf"):
        assert_clean_error(run(*args, "--output", str(tmp_path / "bad"), "--shard-mb", bad), "--shard-mb must be")
    assert_clean_error(run("tokenize", str(src), "--model", "qwen3.6", "--shard-mb", "1"), "pass --output DIR")
