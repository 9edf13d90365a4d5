"""Corpus jobs and the file system (issue 30, 5-8): each real file read once (globs through link loops
included), pipes and devices refused, OS errors as one line naming the path, workers that end with
their job however it ends."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import toklane
from toklane.corpus import CorpusError, count_corpus, expand_inputs, tokenize_corpus

from .test_cli import assert_clean_error, run
from .test_corpus import write_jsonl

pq = pytest.importorskip("pyarrow.parquet")


def test_a_glob_through_a_link_loop_reads_each_file_once(tmp_path):
    g = tmp_path / "g"
    write_jsonl(g / "a.jsonl", [{"text": "a"}])
    write_jsonl(g / "sub" / "b.jsonl", [{"text": "b"}])
    (g / "loop").symlink_to(".")
    (g / "sub" / "up").symlink_to("..")
    (g / "alias.jsonl").symlink_to("a.jsonl")
    found: list[list[str]] = []
    walk = threading.Thread(target=lambda: found.append(expand_inputs(str(g / "**" / "*.jsonl"))), daemon=True)
    walk.start()
    walk.join(60)  # two loops made glob.glob walk for minutes
    assert not walk.is_alive()
    assert found == [[str(g / "a.jsonl"), str(g / "sub" / "b.jsonl")]]
    assert expand_inputs(g) == [str(g / "a.jsonl"), str(g / "sub" / "b.jsonl")]
    # a file named twice, or through a link, is one file
    assert expand_inputs([g / "a.jsonl", g / "loop" / "a.jsonl", g / "alias.jsonl"]) == [str(g / "a.jsonl")]
    stats = count_corpus(str(g / "**" / "*.jsonl"), "qwen3.6", text_field="text", workers=1)
    assert stats.records == 2  # was 41 for the one loop
    proc = run("count", str(g / "**" / "*.jsonl"), "--model", "qwen3.6", "--text-field", "text", "--json")
    assert proc.returncode == 0 and '"records": 2' in proc.stdout


def test_glob_keeps_glob_spelling_and_hidden_rules(tmp_path, monkeypatch):
    write_jsonl(tmp_path / "d" / "x.jsonl", [{"text": "x"}])
    write_jsonl(tmp_path / "d" / ".hidden.jsonl", [{"text": "h"}])
    write_jsonl(tmp_path / "d" / ".cache" / "y.jsonl", [{"text": "y"}])
    monkeypatch.chdir(tmp_path)
    assert expand_inputs("d/*.jsonl") == ["d/x.jsonl"]
    assert expand_inputs("./d/**/*.jsonl") == ["./d/x.jsonl"]
    assert expand_inputs("d/.*.jsonl") == ["d/.hidden.jsonl"]
    assert expand_inputs("*/x.jsonl") == ["d/x.jsonl"]
    assert expand_inputs(str(tmp_path / "d" / "*.jsonl")) == [str(tmp_path / "d" / "x.jsonl")]
    assert expand_inputs("d") == ["d/x.jsonl"]  # hidden files and folders are left out of a folder
    with pytest.raises(CorpusError, match="no file matches this pattern"):
        expand_inputs("d/*.parquet")


def test_pipes_and_devices_are_refused_with_one_line(tmp_path):
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "a named pipe (FIFO)"), ("/dev/zero", "a character device")):
        with pytest.raises(CorpusError, match=rf"is {kind.replace('(', '.').replace(')', '.')}, not a regular file"):
            count_corpus(path, "qwen3.6", workers=1)
        proc = run("count", str(path), "--model", "qwen3.6", "--text-field", "text")
        assert_clean_error(proc, f"{path}: is {kind}, not a regular file")
    with pytest.raises(CorpusError, match="holds a NUL character"):
        expand_inputs("a\x00b")
    with pytest.raises(toklane.ToklaneError, match="NUL"):
        toklane.load_tokenizer("~\x00")


def test_output_side_os_errors_are_one_line_and_a_rerun_completes(tmp_path):
    rng = random.Random(0)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ日本語кодü🙂 "
    short = [{"text": f"line {i}"} for i in range(1500)]  # small shards, then shards of ~100 KB
    big = [{"text": "".join(rng.choices(letters, k=20000))} for _ in range(3)]
    src = write_jsonl(tmp_path / "in.jsonl", short + big)
    (tmp_path / "file").write_text("x")
    with pytest.raises(CorpusError, match=r"file/out: cannot be used as the output folder: Not a directory"):
        tokenize_corpus(src, tmp_path / "file" / "out", "qwen3.6", text_field="text", workers=1)
    args = [str(src), "--model", "qwen3.6", "--text-field", "text", "--no-progress", "--shard-mb", "0.01"]
    proc = run("tokenize", *args, "--output", str(tmp_path / "file" / "out"))
    assert_clean_error(proc, "file/out: cannot be used as the output folder")
    # A full disk, as a file size limit: the second shard cannot be written.
    full = textwrap.dedent(
        f"""
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (40000, 40000))
        from toklane.cli import main
        sys.exit(main(["tokenize", *{args!r}, "--output", {str(tmp_path / "out")!r}, "--workers", "{{}}"]))
        """
    )
    for workers in (1, 2):
        proc = subprocess.run([sys.executable, "-c", full.format(workers)], capture_output=True, text=True, timeout=120)
        assert_clean_error(proc, "part-0000")
        assert "cannot be written: File too large" in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    shard_bytes = round(0.01 * (1 << 20))  # as --shard-mb 0.01
    stats = tokenize_corpus(src, tmp_path / "out", "qwen3.6", text_field="text", workers=1, shard_bytes=shard_bytes)
    whole = tokenize_corpus(src, tmp_path / "whole", "qwen3.6", text_field="text", workers=1, shard_bytes=shard_bytes)
    assert stats.resumed > 0 and not list((tmp_path / "out").glob(".*tmp*"))
    for a, b in zip(stats.shards, whole.shards, strict=True):
        assert pq.read_table(a).equals(pq.read_table(b))


def _children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_workers_end_when_the_job_is_killed(tmp_path):
    rows = [{"text": f"record {i} " + "words and more words " * 30} for i in range(20000)]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    script = (
        "from toklane.corpus import tokenize_corpus\n"
        "if __name__ == '__main__':\n"
        f"    tokenize_corpus({str(src)!r}, {str(tmp_path / 'out')!r}, 'qwen3.6', text_field='text', workers=2,"
        " shard_bytes=1 << 20)\n"
    )
    (tmp_path / "job.py").write_text(script)
    job = subprocess.Popen([sys.executable, str(tmp_path / "job.py")], start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        workers: set[int] = set()
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
            workers = {p for p in _children(job.pid) if "spawn_main" in Path(f"/proc/{p}/cmdline").read_text()}
        assert len(workers) >= 2, "the job's workers did not start"
        job.send_signal(signal.SIGKILL)
        job.wait()
        killed = time.monotonic()
        while any(map(_alive, workers)) and time.monotonic() < killed + 10:
            time.sleep(0.05)
        assert not any(map(_alive, workers)), "workers outlived their job"  # before: they went on for minutes
        shards = sorted((tmp_path / "out").glob("part-*"))
        time.sleep(1)
        assert sorted((tmp_path / "out").glob("part-*")) == shards  # nothing written after
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
