"""Corpus jobs read JSON Lines and text files in ``encoding`` with the ``errors`` policy
(``--encoding`` / ``--errors``): per line, the same for 1 and 2 workers and on Ray."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import toklane
from toklane.corpus import CorpusError, count_corpus, tokenize_corpus
from toklane.errors import InvalidArgumentError

from .test_cli import assert_clean_error, run

TEXTS = ["café naïve señor", "Zürich, Ærø, ½ €5", "plain ascii", "àéîõü " * 40, "“quoted” — dash"]
BAD = b"\x81\x8d"  # undefined in cp1252, not UTF-8: a stray byte pair on line 3 of mixed.jsonl


def jsonl_bytes(texts: list[str], encoding: str) -> bytes:
    return b"".join(
        (json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n").encode(encoding) for i, t in enumerate(texts)
    )


@pytest.fixture(scope="module")
def tok():
    return toklane.load_tokenizer("qwen3.6")


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """latin1.jsonl (cp1252), mixed.jsonl (UTF-8 with a bad byte pair on line 3), notes.txt (cp1252)."""
    (tmp_path / "latin1.jsonl").write_bytes(jsonl_bytes(TEXTS * 30, "cp1252"))
    lines = jsonl_bytes(TEXTS, "utf-8").splitlines(keepends=True)
    lines[2] = lines[2].replace(b"plain", b"pl" + BAD + b"ain")
    (tmp_path / "mixed.jsonl").write_bytes(b"".join(lines))
    (tmp_path / "notes.txt").write_bytes("Größe: 5 € — fin\n".encode("cp1252"))
    return tmp_path


def expected(tok, data: bytes, encoding: str, errors: str = "strict") -> int:
    """What Python gives: decode the file, parse each line, count each text."""
    return sum(tok.count(json.loads(line)["text"]) for line in data.decode(encoding, errors).splitlines())


def test_a_cp1252_file_counts_as_decoding_it_in_python(tok, files):
    data = (files / "latin1.jsonl").read_bytes()
    stats = count_corpus(files / "latin1.jsonl", text_field="text", encoding="cp1252", workers=1)
    assert stats.tokens == expected(tok, data, "cp1252") and stats.records == len(TEXTS) * 30
    # latin-1 reads every byte: the same text where cp1252 and latin-1 agree
    ascii_only = files / "ascii.jsonl"
    ascii_only.write_bytes(jsonl_bytes(["café naïve señor Zürich"] * 5, "latin-1"))
    latin = count_corpus(ascii_only, text_field="text", encoding="latin-1", workers=1)
    assert latin.tokens == expected(tok, ascii_only.read_bytes(), "latin-1")
    text = count_corpus(files / "notes.txt", encoding="cp1252", workers=1)
    assert text.tokens == tok.count("Größe: 5 € — fin\n")


def test_strict_names_the_line_and_both_flags_then_skip_reads_the_rest(tok, files):
    with pytest.raises(CorpusError) as err:
        count_corpus(files / "mixed.jsonl", text_field="text", workers=1)
    message = str(err.value)
    assert message.startswith(f"{files / 'mixed.jsonl'}:3: not valid UTF-8 at byte ")
    assert "--errors replace" in message and "--on-error skip" in message and "--encoding" in message
    skipped = count_corpus(files / "mixed.jsonl", text_field="text", workers=1, on_error="skip")
    assert [(Path(p).name, line) for p, line, _ in skipped.errors] == [("mixed.jsonl", 3)]
    assert skipped.records == len(TEXTS) - 1
    # another encoding's bad byte: named with that encoding
    with pytest.raises(CorpusError, match=r"mixed.jsonl:3: not valid cp1252 at byte \d+ \(0x81\)"):
        count_corpus(files / "mixed.jsonl", text_field="text", workers=1, encoding="cp1252")


@pytest.mark.parametrize("errors", ["replace", "ignore", "backslashreplace"])
def test_errors_policies_read_a_mixed_file_like_python(tok, files, errors):
    data = (files / "mixed.jsonl").read_bytes()
    stats = count_corpus(files / "mixed.jsonl", text_field="text", workers=1, errors=errors)
    assert stats.records == len(TEXTS) and stats.errors == ()
    if errors == "backslashreplace":  # the value holds \x81\x8d as text, as a text file's would
        want = list(TEXTS)
        want[2] = "pl\\x81\\x8dain ascii"
        assert stats.tokens == sum(map(tok.count, want))
    else:
        assert stats.tokens == expected(tok, data, "utf-8", errors)


def test_one_and_two_workers_agree(files):
    inputs = [files / "latin1.jsonl", files / "mixed.jsonl", files / "notes.txt"]
    kw = {"text_field": "text", "encoding": "cp1252", "errors": "replace", "split_bytes": 1024}
    one = count_corpus(inputs, workers=1, **kw)
    two = count_corpus(inputs, workers=2, **kw)
    assert one == two and one.records == len(TEXTS) * 31 + 1 and one.errors == ()


def test_tokenize_writes_the_decoded_text_and_resume_knows_the_encoding(tok, files, tmp_path):
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    out = tmp_path / "shards"
    stats = tokenize_corpus(files / "latin1.jsonl", out, text_field="text", encoding="latin-1", workers=1)
    rows = pq.read_table(out).to_pylist()
    decoded = (files / "latin1.jsonl").read_bytes().decode("latin-1").splitlines()
    assert [r["text"] for r in rows] == [json.loads(line)["text"] for line in decoded]
    assert [r["input_ids"] for r in rows] == [tok.encode(r["text"]) for r in rows]
    assert stats.written == len(rows)
    # the same job in another encoding is another job: its shards are not kept
    with pytest.raises(CorpusError, match="from a different job"):
        tokenize_corpus(files / "latin1.jsonl", out, text_field="text", encoding="cp1252", workers=1)
    again = tokenize_corpus(files / "latin1.jsonl", out, text_field="text", encoding="cp1252", overwrite=True)
    assert [r["text"] for r in pq.read_table(out).to_pylist()] == [
        json.loads(line)["text"] for line in (files / "latin1.jsonl").read_bytes().decode("cp1252").splitlines()
    ]
    assert again.resumed == 0


def test_a_utf8_bom_is_read_as_json_lines_and_dropped_by_utf8_sig_in_text(tok, tmp_path):
    bom = b"\xef\xbb\xbf"
    (tmp_path / "b.jsonl").write_bytes(bom + jsonl_bytes(TEXTS, "utf-8"))
    (tmp_path / "b.txt").write_bytes(bom + "héllo".encode())
    for kw in ({}, {"encoding": "utf-8-sig"}, {"errors": "replace"}):
        stats = count_corpus(tmp_path / "b.jsonl", text_field="text", workers=1, **kw)
        assert stats.tokens == sum(map(tok.count, TEXTS)) and stats.errors == ()
    assert count_corpus(tmp_path / "b.txt", encoding="utf-8-sig", workers=1).tokens == tok.count("héllo")


@pytest.mark.parametrize(
    "kw, needle",
    [
        ({"encoding": "utf-16"}, "keep ASCII as ASCII (utf-8, utf-8-sig, latin-1, cp1252"),
        ({"encoding": "utf-32-le"}, "cut files into records at newline bytes"),
        ({"encoding": "cp500"}, "iconv -f cp500 -t utf-8"),
        ({"encoding": "no-such-codec"}, "unknown encoding 'no-such-codec'"),
        ({"encoding": "rot13"}, "not a text encoding"),
        ({"errors": "surrogateescape"}, "'strict', 'replace', 'ignore', 'backslashreplace'"),
    ],
)
def test_encodings_and_policies_that_are_refused(files, kw, needle):
    with pytest.raises(InvalidArgumentError, match=needle.replace("(", r"\(")):
        count_corpus(files / "latin1.jsonl", text_field="text", **kw)


def test_parquet_strings_are_utf8_and_errors_applies_to_broken_ones(tok, tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    values = pa.array([b"caf\xc3\xa9", b"pl\x81ain"], type=pa.binary()).cast(pa.string(), safe=False)
    pq.write_table(pa.table({"text": values}), tmp_path / "d.parquet")
    with pytest.raises(InvalidArgumentError, match="does not apply to Parquet inputs"):
        count_corpus(tmp_path / "d.parquet", text_field="text", encoding="latin-1")
    strict = count_corpus(tmp_path / "d.parquet", text_field="text", on_error="skip", workers=1)
    assert [line for _, line, _ in strict.errors] == [2]
    replaced = count_corpus(tmp_path / "d.parquet", text_field="text", errors="replace", workers=1)
    assert replaced.tokens == tok.count("café") + tok.count("pl\ufffdain") and replaced.errors == ()


# --------------------------------------------------------------------------- CLI


def test_cli_count_reads_latin1_and_replace(tok, files):
    proc = run(
        "count",
        str(files / "latin1.jsonl"),
        "--model",
        "qwen3.6",
        "--text-field",
        "text",
        "--encoding",
        "latin-1",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    data = (files / "latin1.jsonl").read_bytes()
    assert json.loads(proc.stdout)["total"] == expected(tok, data, "latin-1")
    proc = run(
        "count",
        str(files / "mixed.jsonl"),
        "--model",
        "qwen3.6",
        "--text-field",
        "text",
        "--errors",
        "replace",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["total"] == expected(tok, (files / "mixed.jsonl").read_bytes(), "utf-8", "replace")
    assert out["errors"] == [] and out["records"] == len(TEXTS)


def test_cli_strict_error_is_one_line_naming_the_flags(files):
    proc = run("count", str(files / "mixed.jsonl"), "--model", "qwen3.6", "--text-field", "text")
    assert_clean_error(proc, f"{files / 'mixed.jsonl'}:3: not valid UTF-8")
    assert "--errors replace" in proc.stderr and "--on-error skip" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    proc = run(
        "count", str(files / "latin1.jsonl"), "--model", "qwen3.6", "--text-field", "text", "--encoding", "utf-16"
    )
    assert_clean_error(proc, "keep ASCII as ASCII")
    assert len(proc.stderr.strip().splitlines()) == 1


def test_cli_tokenize_takes_the_encoding(tok, files, tmp_path):
    pytest.importorskip("pyarrow")
    out = tmp_path / "shards"
    proc = run(
        "tokenize",
        str(files / "notes.txt"),
        "--model",
        "qwen3.6",
        "--encoding",
        "cp1252",
        "--output",
        str(out),
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["total"] == tok.count("Größe: 5 € — fin\n")


# --------------------------------------------------------------------------- Ray


def test_ray_equals_the_local_engine(files):
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="WARNING")
    try:
        inputs = [files / "latin1.jsonl", files / "mixed.jsonl"]
        kw = {"text_field": "text", "encoding": "cp1252", "errors": "replace", "split_bytes": 2048}
        local = count_corpus(inputs, workers=1, **kw)
        on_ray = count_corpus(inputs, engine="ray", **kw)
        assert dataclasses.asdict(on_ray) == dataclasses.asdict(local)
    finally:
        if started:
            ray.shutdown()


def test_a_lone_surrogate_escape_is_a_bad_record_in_any_encoding(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"text": "caf\xe9"}\n{"text": "x\\ud800y"}\n')
    stats = count_corpus(path, text_field="text", encoding="latin-1", on_error="skip", workers=1)
    assert stats.records == 1 and [(line, "lone surrogate" in why) for _, line, why in stats.errors] == [(2, True)]
