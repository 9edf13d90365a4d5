"""benchmarks/corpus.py (issue 15's benchmark) runs end to end on a tiny corpus, and its generated
corpus is deterministic, multilingual and cached."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("datasets", reason="the bench extra (datasets) is not installed")
pytest.importorskip("rich", reason="the bench extra is not installed")
pytest.importorskip("pyarrow", reason="toklane tokenize writes Parquet (the corpus extra)")


@pytest.fixture(scope="module")
def bench_module():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import corpus as bench

        yield bench
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
        sys.modules.pop("corpus", None)


def test_corpus_is_deterministic_multilingual_and_cached(bench_module, tmp_path):
    a = bench_module.corpus_path(tmp_path / "a", 0.3)
    b = bench_module.corpus_path(tmp_path / "b", 0.3)
    assert a.read_bytes() == b.read_bytes()  # same seed, same bytes
    assert 300_000 <= a.stat().st_size < 300_000 + 250_000  # the size asked for, to within one record
    mtime = a.stat().st_mtime_ns
    assert bench_module.corpus_path(tmp_path / "a", 0.3) == a and a.stat().st_mtime_ns == mtime  # not regenerated
    assert not list((tmp_path / "a").glob("*.tmp*"))  # written to a temporary name, then renamed
    records = [json.loads(line) for line in a.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in records] == list(range(len(records)))
    text = "".join(r["text"] for r in records)
    for script, low, high in (("CJK", 0x4E00, 0x9FFF), ("kana", 0x3040, 0x30FF), ("Cyrillic", 0x0400, 0x04FF)):
        assert any(low <= ord(c) <= high for c in text), script
    assert any(0x0600 <= ord(c) <= 0x06FF for c in text), "Arabic"
    assert any(ord(c) >= 0x1F300 for c in text), "emoji"
    assert "def " in text and "return" in text, "code"
    lengths = sorted(len(r["text"].encode()) for r in records)
    assert lengths[-1] > 10 * lengths[len(lengths) // 10]  # varied lengths


def test_benchmark_runs_end_to_end_on_a_tiny_corpus(tmp_path, request):
    # The generated corpora and the converted HF tokenizer.json are deterministic: kept in pytest's
    # cache between runs as the benchmark keeps them in $TMPDIR (the conversion alone takes ~4 s).
    cache = request.config.cache.mkdir("toklane-bench-corpus")
    jobs_tmp = tmp_path / "tmp"
    jobs_tmp.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TMPDIR": str(jobs_tmp)}
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "corpus.py"),
            *("--size-mb", "0.1", "--repeat", "1", "--cache-dir", str(cache)),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = " ".join(proc.stdout.split())  # the table wraps long captions
    for tool in ("toklane count", "toklane tokenize", "datasets count", "datasets tokenize", "tiktoken"):
        assert tool in out, tool
    for name in ("qwen3.6", "cl100k_base", "o200k_base"):
        assert name in out
    assert "ids equal: yes" in out
    assert "token totals equal: yes" in out
    assert "tokenize ids equal (CRC of all ids, toklane shards vs HF map output): yes" in out
    assert "toklane count peak memory" in out and "scaling:" in out
    # Each job's temporary folder (its shards, HF's cache) is removed; tiktoken keeps its own file cache.
    assert [p.name for p in jobs_tmp.iterdir() if p.name != "data-gym-cache"] == []
