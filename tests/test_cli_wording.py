"""The CLI's words match what it does: count takes --min-tokens as docs/corpus.md says, one bad
line gets one message whichever reader meets it, a JSONL file given to --messages is told which
flag reads it, and counts agree in number ("1 shard")."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from toklane.corpus import count_corpus


def run(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toklane.cli", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


@pytest.fixture()
def records(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"text": "a b c"}\n{"text": "a"}\n{"text": "a b"}\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("workers", [1, 2])
def test_count_reports_records_under_min_tokens(records, workers):
    stats = count_corpus(records, "qwen3.6", text_field="text", min_tokens=2, max_tokens=2, workers=workers)
    assert (stats.records, stats.under_min, stats.over_max) == (3, 1, 1)
    assert stats.to_json()["under_min"] == 1


def test_count_min_tokens_on_the_command_line(records):
    proc = run("count", str(records), "--model", "qwen3.6", "--text-field", "text", "--min-tokens", "2")
    assert proc.returncode == 0, proc.stderr
    assert "under 2 tokens: 1 record\n" in proc.stdout
    proc = run("count", str(records), "--model", "qwen3.6", "--min-tokens", "2", "--json")
    assert proc.returncode == 2 or json.loads(proc.stdout)["under_min"] == 1  # corpus mode needs a field


def test_one_bad_line_one_message(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "a"}\n{"text": "b\n', encoding="utf-8")
    by_field = run("count", str(path), "--model", "qwen3.6", "--jsonl-field", "text")
    by_corpus = run("count", str(path), "--model", "qwen3.6", "--text-field", "text")
    assert by_field.returncode == by_corpus.returncode == 2
    message = "bad.jsonl:2: not JSON (Unterminated string starting at: line 1 column 10 (char 9))"
    assert message in by_field.stderr and message in by_corpus.stderr, (by_field.stderr, by_corpus.stderr)


def test_messages_on_a_jsonl_file_names_the_flag_that_reads_it(tmp_path):
    path = tmp_path / "chats.jsonl"
    line = json.dumps({"id": 1, "messages": [{"role": "user", "content": "hi"}]})
    path.write_text(f"{line}\n{line}\n", encoding="utf-8")
    proc = run("count", str(path), "--model", "qwen3.6", "--messages")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--messages-field messages" in proc.stderr and "--jsonl-field messages" in proc.stderr, proc.stderr
    fixed = run("count", str(path), "--model", "qwen3.6", "--messages-field", "messages")
    assert fixed.returncode == 0, fixed.stderr


def test_one_shard_is_singular(records, tmp_path):
    pytest.importorskip("pyarrow")
    proc = run("tokenize", str(records), "--model", "qwen3.6", "--text-field", "text", "--output", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    assert "wrote 3 records to 1 shard in" in proc.stdout
