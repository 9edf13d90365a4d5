"""Input that is not valid in the chosen encoding, through the real CLI (subprocess): an error
naming the file, the byte offset and --encoding by default; --encoding decodes; --errors replace
replaces after one warning. Never silent U+FFFD."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import toklane

LATIN1 = "café naïve, señor\n".encode("latin-1")  # 0xe9 at byte 3


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "toklane.cli", *args], input=stdin, capture_output=True, timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def hint(where: str, offset: int, byte: str) -> str:
    return (
        f"toklane: error: {where}: not valid utf-8 at byte {offset} (0x{byte}); "
        "pass its encoding with --encoding (e.g. --encoding latin-1) or --errors replace\n"
    )


def test_count_latin1_file_is_an_error_naming_file_offset_and_encoding(tmp_path):
    f = tmp_path / "latin1.txt"
    f.write_bytes(LATIN1)
    proc = run("count", str(f), "--model", "qwen3")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == hint(str(f), 3, "e9")
    stdin = run("count", "-", "--model", "qwen3", stdin=LATIN1)
    assert stdin.returncode == 2 and stdin.stderr == hint("<stdin>", 3, "e9")


def test_count_with_encoding_and_with_replacement(tmp_path):
    f = tmp_path / "latin1.txt"
    f.write_bytes(LATIN1)
    tok = toklane.load_tokenizer("qwen3")
    proc = run("count", str(f), "--model", "qwen3", "--encoding", "latin-1", "--json")
    assert proc.returncode == 0 and proc.stderr == ""
    assert json.loads(proc.stdout)["total"] == tok.count(LATIN1.decode("latin-1"))
    proc = run("count", str(f), "--model", "qwen3", "--errors", "replace", "--json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["total"] == tok.count(LATIN1.decode("utf-8", errors="replace"))
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(f"toklane: warning: {f}: ")
    assert "(the first at byte 3)" in proc.stderr and "U+FFFD" in proc.stderr and "--encoding" in proc.stderr


def test_jsonl_and_messages_files_use_the_encoding(tmp_path):
    jl = tmp_path / "data.jsonl"
    jl.write_bytes(json.dumps({"t": "café"}, ensure_ascii=False).encode("latin-1") + b"\n")
    assert run("count", str(jl), "--model", "llama3", "--jsonl-field", "t").returncode == 2
    proc = run("count", str(jl), "--model", "llama3", "--jsonl-field", "t", "--encoding", "latin-1", "--json")
    assert json.loads(proc.stdout)["total"] == toklane.count_tokens("café", "llama3")


def test_parse_whole_and_streamed(tmp_path):
    text = "<think>Réflexion.</think>Voilà: café"
    f = tmp_path / "out.txt"
    f.write_bytes(text.encode("latin-1"))
    for mode in ((), ("--stream",)):
        proc = run("parse", str(f), "--model", "qwen3", "--reasoning", "qwen3", *mode)
        assert proc.returncode == 2 and proc.stderr == hint(str(f), 8, "e9"), mode
        proc = run("parse", str(f), "--model", "qwen3", "--reasoning", "qwen3", "--encoding", "latin-1", *mode)
        assert proc.returncode == 0, proc.stderr
        lines = [json.loads(line) for line in proc.stdout.splitlines()]
        if mode:
            assert "".join(d.get("reasoning_content") or "" for d in lines) == "Réflexion."
            assert "".join(d.get("content") or "" for d in lines) == "Voilà: café"
        else:
            assert lines[0]["reasoning"] == "Réflexion." and lines[0]["content"] == "Voilà: café"


def test_stream_offsets_across_read_chunks(tmp_path):
    # The CLI reads 64 KiB at a time: the offset of a bad byte in a later read is the file offset,
    # and a character split across two reads is not an error.
    valid = ("a" * 65535 + "é" + "b" * 1000).encode()  # "é" straddles the 65536 boundary
    f = tmp_path / "valid.txt"
    f.write_bytes(valid)
    proc = run("parse", str(f), "--model", "qwen3", "--stream")
    assert proc.returncode == 0, proc.stderr
    assert "".join(json.loads(line).get("content") or "" for line in proc.stdout.splitlines()) == valid.decode()
    bad = valid + b"x\xffy" + b"z" * 70000
    f.write_bytes(bad)
    proc = run("parse", str(f), "--model", "qwen3", "--stream")
    assert proc.returncode == 2 and proc.stderr == hint(str(f), len(valid) + 1, "ff")
    proc = run("parse", str(f), "--model", "qwen3", "--stream", "--errors", "replace")
    assert proc.returncode == 0
    assert f"(the first at byte {len(valid) + 1})" in proc.stderr and proc.stderr.count("\n") == 1
    content = "".join(json.loads(line).get("content") or "" for line in proc.stdout.splitlines())
    assert content == bad.decode("utf-8", errors="replace")


@pytest.mark.parametrize(
    "encoding, needle",
    [("no-such-codec", "unknown encoding 'no-such-codec' for --encoding"), ("base64", "not a text encoding")],
)
def test_bad_encoding_names(tmp_path, encoding, needle):
    proc = run("count", "-", "--model", "qwen3", "--encoding", encoding, stdin=b"hi")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("toklane: error:") and needle in proc.stderr and proc.stderr.count("\n") == 1
