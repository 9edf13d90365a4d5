"""`toklane tokenize` (the CLI command the public contract names), run as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

import toklane


def run(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "toklane.cli", *args], input=stdin, capture_output=True, timeout=120)


def test_tokenize_ids_strings_and_json(tmp_path):
    proc = run("tokenize", "--model", "qwen3.6", stdin=b"Hello <think>")
    assert proc.returncode == 0 and proc.stdout == b"9419 220 248068\n", proc.stderr
    text = "日本語 <|begin_of_text|>x"
    f = tmp_path / "t.txt"
    f.write_text(text)
    tok = toklane.load_tokenizer("llama3")
    proc = run("tokenize", str(f), "--model", "llama3", "--json", "--strings", "--add-special-tokens", stdin=b"")
    out = json.loads(proc.stdout)
    ids = tok.encode(text, add_special_tokens=True)
    assert out == {"model": "llama3", "tokens": ids, "count": len(ids), "token_strs": [tok.id_to_token(i) for i in ids]}
    split = run("tokenize", str(f), "--model", "llama3", "--split-special-tokens", stdin=b"").stdout.split()
    assert [int(i) for i in split] == tok.encode(text, split_special_tokens=True)
    lines = run("tokenize", "--model", "llama3", "--strings", stdin=b"Hi there").stdout.decode().splitlines()
    assert lines == [f"{i}\t{json.dumps(tok.id_to_token(i), ensure_ascii=False)}" for i in tok.encode("Hi there")]


def test_tokenize_reads_with_the_encoding():
    latin1 = "café".encode("latin-1")
    proc = run("tokenize", "--model", "qwen3", stdin=latin1)
    assert proc.returncode == 2 and proc.stderr.decode().startswith(
        "toklane: error: <stdin>: not valid utf-8 at byte 3"
    )
    proc = run("tokenize", "--model", "qwen3", "--encoding", "latin-1", stdin=latin1)
    assert [int(i) for i in proc.stdout.split()] == toklane.load_tokenizer("qwen3").encode("café")
