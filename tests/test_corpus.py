"""toklane.corpus.count_corpus and `toklane count`'s corpus mode (folders, globs, parquet, workers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toklane
from tests.profiles import examples
from toklane.corpus import CorpusError, count_corpus, default_workers
from toklane.errors import ToklaneError

from .test_cli import assert_clean_error, run

MSGS = [{"role": "user", "content": "hi there"}, {"role": "assistant", "content": "hello!"}]


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def test_counts_match_encode_and_count_tokens(tmp_path):
    tok = toklane.load_tokenizer("qwen3.6")
    texts = ["Hello world", "日本語のテキスト <think> and code: def f(x): return x", "", "a" * 500]
    write_jsonl(tmp_path / "a.jsonl", [{"text": t, "m": MSGS} for t in texts])
    (tmp_path / "notes.md").write_text("# Title\n\nsome plain text, ünïcode.\n", encoding="utf-8")
    stats = count_corpus([tmp_path], "qwen3.6", text_field="text", workers=1)
    expected = [len(tok.encode(t)) for t in texts]
    assert [f.path for f in stats.files] == [str(tmp_path / "a.jsonl"), str(tmp_path / "notes.md")]
    assert stats.files[0].records == 4 and stats.files[0].tokens == sum(expected)
    assert stats.files[1].records == 1 and stats.files[1].tokens == len(tok.encode((tmp_path / "notes.md").read_text()))
    assert stats.tokens == sum(expected) + stats.files[1].tokens and stats.records == 5
    lengths = sorted([*expected, stats.files[1].tokens])
    assert (stats.min, stats.max) == (lengths[0], lengths[-1])
    assert stats.over_max is None and stats.errors == ()

    chat = count_corpus(tmp_path / "a.jsonl", "llama3", messages_field="m", workers=1, max_tokens=5)
    one = toklane.count_tokens(MSGS, model="llama3")
    assert chat.tokens == 4 * one and chat.records == 4 and chat.over_max == 4 and chat.p50 == one


def test_length_distribution_and_over_max(tmp_path):
    # records of 1..100 tokens: "a"*n is not n tokens, so build them from a one-token word
    tok = toklane.load_tokenizer("llama3")
    texts = [" hi" * n for n in range(1, 101)]
    counts = sorted(len(tok.encode(t)) for t in texts)
    write_jsonl(tmp_path / "d.jsonl", [{"t": t} for t in texts])
    stats = count_corpus(tmp_path / "d.jsonl", "llama3", text_field="t", workers=1, max_tokens=counts[79])
    assert (stats.min, stats.p50, stats.p90, stats.p99, stats.max) == (
        counts[0],
        counts[49],
        counts[89],
        counts[98],
        counts[-1],
    )
    assert stats.over_max == sum(c > counts[79] for c in counts) == 20


def test_one_and_two_workers_agree_and_chunks_merge_in_order(tmp_path):
    rows = [{"text": f"record {i} " + "word " * (i % 37), "m": MSGS[: 1 + i % 2]} for i in range(700)]
    write_jsonl(tmp_path / "x" / "b.jsonl", rows)
    write_jsonl(tmp_path / "x" / "a.jsonl", [*rows[:50], "not json", {"other": 1}])
    results = [
        count_corpus(
            [tmp_path / "x"], "qwen3.6", text_field="text", workers=w, on_error="skip", split_bytes=2000, max_tokens=20
        )
        for w in (1, 2)
    ]
    assert results[0] == results[1]
    assert results[0].errors == (
        (str(tmp_path / "x" / "a.jsonl"), 51, "not JSON (Expecting value: line 1 column 1 (char 0))"),
        (str(tmp_path / "x" / "a.jsonl"), 52, "no field 'text'"),
    )
    assert [f.records for f in results[0].files] == [50, 700]


def test_bad_lines_fail_naming_file_and_line_or_are_skipped(tmp_path):
    path = write_jsonl(tmp_path / "bad.jsonl", [{"text": "ok"}, "", "{broken", {"text": 3}, {"text": "fine"}])
    with pytest.raises(CorpusError, match=r"bad\.jsonl:3: not JSON .*--on-error skip") as info:
        count_corpus(path, "qwen3.6", text_field="text", workers=1)
    assert isinstance(info.value, ToklaneError) and "\n" not in str(info.value)
    stats = count_corpus(path, "qwen3.6", text_field="text", workers=1, on_error="skip")
    assert stats.records == 2 and stats.files[0].errors == 2
    assert [(line, reason.split(" (")[0]) for _, line, reason in stats.errors] == [
        (3, "not JSON"),
        (4, "field 'text' is int, not text"),
    ]
    with pytest.raises(CorpusError, match="--text-field or --messages-field"):
        count_corpus(path, "qwen3.6", workers=1)
    with pytest.raises(CorpusError, match="no file matches"):
        count_corpus(str(tmp_path / "*.parquet"), "qwen3.6", text_field="text", workers=1)


def test_default_workers_every_core_for_big_corpora_in_process_for_small():
    cores = os.cpu_count() or 1
    assert default_workers(0) == default_workers(10 << 20) == 1
    assert default_workers(cores * (32 << 20)) == cores == default_workers(1 << 40)
    assert default_workers(2 * (32 << 20)) == min(2, cores)


def _worker_threads() -> tuple[int, int, str | None, str | None, str | None]:
    """In a corpus worker: its tokenizer engine's threads, the engines' limit, and the three variables."""
    from toklane.corpus.work import _STATE
    from toklane.tokenizer.engines.base import cpu_count

    backend = _STATE["tok"]._backend
    engine = getattr(backend, "_engine", backend)
    env = os.environ.get
    return engine.threads, cpu_count(), env("TOKLANE_THREADS"), env("RAYON_NUM_THREADS"), env("FASTOKENS_BPE_THREADS")


def test_a_worker_encodes_on_one_thread_set_by_a_call_not_the_environment(monkeypatch):
    """A pool worker's tokenizer is built single-threaded through switches.set_thread_limit: no
    TOKLANE_THREADS is written to pass it (the variable stays the user's, here unset), while HF
    tokenizers' and fastokens' own variables are set in the worker."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from toklane.corpus.records import Options
    from toklane.corpus.work import Limits, init_worker

    monkeypatch.delenv("TOKLANE_THREADS", raising=False)
    monkeypatch.delenv("RAYON_NUM_THREADS", raising=False)
    monkeypatch.delenv("FASTOKENS_BPE_THREADS", raising=False)
    args = ("cl100k_base", Options("text", None), Limits(), None, os.getpid())
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context, initializer=init_worker, initargs=args) as pool:
        threads, limit, env, rayon, fastokens = pool.submit(_worker_threads).result(timeout=120)
    assert (threads, limit, env, rayon, fastokens) == (1, 1, None, "1", "1")
    for name in ("TOKLANE_THREADS", "RAYON_NUM_THREADS", "FASTOKENS_BPE_THREADS"):
        assert name not in os.environ  # (nothing leaks here)


def test_globs_expand_sorted(tmp_path):
    for name in ("b.txt", "a.txt", "c.md"):
        (tmp_path / name).write_text(f"text of {name}")
    stats = count_corpus(str(tmp_path / "*.txt"), "gpt-4o", workers=1)
    assert [Path(f.path).name for f in stats.files] == ["a.txt", "b.txt"]


def test_parquet(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    texts = [f"row {i} " * (i % 9 + 1) for i in range(300)]
    pq.write_table(pa.table({"text": texts, "m": [MSGS] * 300}), tmp_path / "d.parquet", row_group_size=40)
    tok = toklane.load_tokenizer("qwen3.6")
    for w in (1, 2):
        stats = count_corpus(tmp_path / "d.parquet", "qwen3.6", text_field="text", workers=w, split_bytes=1)
        assert stats.tokens == sum(len(tok.encode(t)) for t in texts) and stats.records == 300
    chat = count_corpus(tmp_path / "d.parquet", "qwen3.6", messages_field="m", workers=1)
    assert chat.tokens == 300 * toklane.count_tokens(MSGS, model="qwen3.6")
    with pytest.raises(CorpusError, match="no column 'body'"):
        count_corpus(tmp_path / "d.parquet", "qwen3.6", text_field="body", workers=1)


texts_strategy = st.lists(st.text(max_size=40), max_size=25)


def _reference_and_stats(corpus: list[list[str]], workers: int):
    tok = toklane.load_tokenizer("qwen3.6")
    with tempfile.TemporaryDirectory() as d:
        for i, texts in enumerate(corpus):
            write_jsonl(Path(d) / f"f{i}.jsonl", [{"text": t} for t in texts])
        stats = count_corpus([d], "qwen3.6", text_field="text", workers=workers, split_bytes=50)
    return [sum(len(tok.encode(t)) for t in texts) for texts in corpus], stats


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(texts_strategy, min_size=1, max_size=4))
def test_totals_equal_reference_in_process(corpus):
    per_file, stats = _reference_and_stats(corpus, 1)
    assert [f.tokens for f in stats.files] == per_file and stats.tokens == sum(per_file)
    assert stats.records == sum(map(len, corpus))


@settings(max_examples=examples(4), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(texts_strategy, min_size=1, max_size=3))
def test_totals_equal_reference_with_two_workers(corpus):
    per_file, stats = _reference_and_stats(corpus, 2)
    assert [f.tokens for f in stats.files] == per_file and stats.tokens == sum(per_file)


# --------------------------------------------------------------------------- CLI


def test_cli_corpus_mode_prints_files_total_distribution_and_json(tmp_path):
    write_jsonl(tmp_path / "c" / "a.jsonl", [{"text": "Hello world"}, {"text": "more text " * 30}])
    (tmp_path / "c" / "b.txt").write_text("plain")
    proc = run("count", str(tmp_path / "c"), "--model", "qwen3.6", "--text-field", "text", "--max-tokens", "10")
    assert proc.returncode == 0, proc.stderr
    expected = count_corpus([tmp_path / "c"], "qwen3.6", text_field="text", workers=1, max_tokens=10)
    lines = proc.stdout.splitlines()
    assert lines[1].split() == [str(expected.files[0].records), str(expected.files[0].tokens), expected.files[0].path]
    assert lines[3].split()[0] == "3" and lines[3].endswith("total")
    assert f"max {expected.max:,}" in lines[4] and lines[5] == "over 10 tokens: 1 record" and expected.over_max == 1
    assert proc.stderr == ""  # no progress bar when stderr is not a terminal
    js = run("count", str(tmp_path / "c"), "--model", "qwen3.6", "--text-field", "text", "--workers", "2", "--json")
    assert json.loads(js.stdout) == expected.to_json() | {"max_tokens": None, "over_max": None}


def test_cli_messages_field_and_on_error(tmp_path):
    path = write_jsonl(tmp_path / "chat.jsonl", [{"m": MSGS}, "oops", {"m": "not a list"}])
    assert_clean_error(
        run("count", str(path), "--model", "llama3", "--messages-field", "m", "--workers", "1"),
        "chat.jsonl:2: not JSON",
    )
    proc = run("count", str(path), "--model", "llama3", "--messages-field", "m", "--on-error", "skip", "--json")
    out = json.loads(proc.stdout)
    assert out["total"] == toklane.count_tokens(MSGS, model="llama3") and out["records"] == 1
    assert [(e["line"], e["reason"]) for e in out["errors"]] == [
        (2, "not JSON (Expecting value: line 1 column 1 (char 0))"),
        (3, "field 'm' is str, not a message list"),
    ]


@pytest.mark.parametrize(
    "extra, needle",
    [
        (("--messages-field", "m", "--text-field", "t"), "exclude each other"),
        (("--workers", "0"), "workers must be at least 1"),
        (("--workers", "1"), "name the field to read with --text-field or --messages-field"),
        (("--text-field", "t", "--encoding", "utf-16"), "keep ASCII as ASCII"),
    ],
)
def test_cli_corpus_errors_are_one_line(tmp_path, extra, needle):
    path = write_jsonl(tmp_path / "d.jsonl", [{"t": "x"}])
    proc = run("count", str(path), "--model", "qwen3.6", *extra)
    assert_clean_error(proc, needle)
    assert len(proc.stderr.strip().splitlines()) == 1


def test_cli_parquet_without_pyarrow_names_the_extra(tmp_path):
    (tmp_path / "d.parquet").write_bytes(b"PAR1")
    code = (
        "import sys; sys.modules['pyarrow'] = None; from toklane.cli import main; "
        f"sys.exit(main(['count', {str(tmp_path / 'd.parquet')!r}, '--model', 'qwen3.6', '--text-field', 't']))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert_clean_error(proc, 'reading .parquet needs pyarrow: pip install "toklane[corpus]"')


def test_unknown_model_fails_in_the_parent_with_any_worker_count(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", [{"t": "x"}])
    for workers in (1, 2):
        with pytest.raises(ToklaneError, match="unknown tokenizer 'qwen-nope'"):
            count_corpus(path, "qwen-nope", text_field="t", workers=workers)
    assert count_corpus(path, "gpt-4o", text_field="t", workers=2).model == "o200k_base"
