"""engine="ray": count_corpus / tokenize_corpus on a local Ray equal the local engine.

One local Ray (2 CPUs) is started for the module; everything is skipped without the
``ray`` extra (``pip install "toklane[ray]"``), except the check of the missing-extra error.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from toklane.corpus import CorpusError, count_corpus, tokenize_corpus
from toklane.errors import InvalidArgumentError

from .test_cli import run
from .test_corpus import MSGS, write_jsonl
from .test_corpus_columns import assert_shards_hold, read_back, records

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

SPLIT_BYTES = 2048  # small splits: several per file, so line numbers cross split boundaries


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="WARNING")
    yield ray
    if started:
        ray.shutdown()


def corpus(folder: Path, bad_line: int | None = None) -> Path:
    """Two JSON Lines files (one with a malformed line at ``bad_line``) and a text file."""
    words = ["alpha", "ünïcode", "日本語", "код", " x = f(y)\n", "🙂", "the"]
    rows: list[object] = [
        {"id": i, "text": " ".join(words[(i * k) % len(words)] for k in range(i % 23)), "m": MSGS} for i in range(300)
    ]
    if bad_line is not None:
        rows[bad_line - 1] = '{"id": "broken", "text": '
        rows[bad_line + 20] = {"id": "no text"}
    write_jsonl(folder / "b.jsonl", rows[:220])
    write_jsonl(folder / "a.jsonl", rows[220:])
    (folder / "c.txt").write_text("a plain text file\nwith two lines", encoding="utf-8")
    (folder / "d.jsonl").write_bytes(b"")  # no records: a split with no blocks
    return folder


def rows_of(folder: Path) -> list[dict]:
    """The shards' rows in name order (the engines cut shards apart, but give them one schema)."""
    shards = sorted(folder.glob("part-*.parquet"))
    return [r for s in shards for r in pq.read_table(s).to_pylist()]


def same_but_shards(local, ray_stats) -> None:
    a, b = dataclasses.asdict(local), dataclasses.asdict(ray_stats)
    a.pop("shards"), b.pop("shards")
    assert a == b


def test_count_equals_the_local_engine(ray_cluster, tmp_path):
    src = corpus(tmp_path / "in", bad_line=150)
    kw = {"text_field": "text", "on_error": "skip", "max_tokens": 40, "split_bytes": SPLIT_BYTES}
    local = count_corpus(src, **kw)
    seen = [0, 0]

    def progress(nbytes: int, ntokens: int) -> None:
        seen[0] += nbytes
        seen[1] += ntokens

    on_ray = count_corpus(src, engine="ray", progress=progress, **kw)
    assert on_ray == local
    assert [(Path(p).name, n) for p, n, _ in on_ray.errors] == [("b.jsonl", 150), ("b.jsonl", 171)]
    assert seen == [sum(p.stat().st_size for p in src.iterdir()), local.tokens]


def test_count_fails_on_the_first_bad_line_like_the_local_engine(ray_cluster, tmp_path):
    src = corpus(tmp_path / "in", bad_line=150)
    with pytest.raises(CorpusError) as local:
        count_corpus(src, text_field="text", split_bytes=SPLIT_BYTES)
    with pytest.raises(CorpusError) as on_ray:
        count_corpus(src, text_field="text", split_bytes=SPLIT_BYTES, engine="ray")
    assert str(on_ray.value) == str(local.value)
    assert str(on_ray.value).startswith(f"{src / 'b.jsonl'}:150: not JSON")
    assert_cpus_come_back(ray_cluster)


def test_tokenize_writes_the_local_engines_rows_in_name_order(ray_cluster, tmp_path):
    src = corpus(tmp_path / "in", bad_line=150)
    kw = {"text_field": "text", "on_error": "skip", "min_tokens": 3, "max_tokens": 40, "shard_bytes": SPLIT_BYTES}
    local = tokenize_corpus(src, tmp_path / "local", **kw)
    on_ray = tokenize_corpus(src, tmp_path / "ray", engine="ray", **kw)
    same_but_shards(local, on_ray)
    assert len(on_ray.shards) > 1 and list(on_ray.shards) == sorted(map(str, (tmp_path / "ray").glob("part-*")))
    assert rows_of(tmp_path / "ray") == rows_of(tmp_path / "local")
    assert len(rows_of(tmp_path / "ray")) == on_ray.written > 0
    # no resume on Ray: a folder holding shards is refused (before any work), or replaced on request
    with pytest.raises(CorpusError, match="does not resume"):
        tokenize_corpus(src, tmp_path / "ray", engine="ray", **kw)


def test_tokenize_fails_on_a_bad_line_with_its_location_and_leaves_no_shards(ray_cluster, tmp_path):
    src = corpus(tmp_path / "in", bad_line=150)  # line 150 lies in a later split of b.jsonl
    with pytest.raises(CorpusError) as local:
        tokenize_corpus(src / "b.jsonl", tmp_path / "local", text_field="text", shard_bytes=SPLIT_BYTES)
    with pytest.raises(CorpusError) as on_ray:
        tokenize_corpus(src / "b.jsonl", tmp_path / "ray", text_field="text", shard_bytes=SPLIT_BYTES, engine="ray")
    assert str(on_ray.value) == str(local.value)
    assert not list((tmp_path / "ray").iterdir())
    assert_cpus_come_back(ray_cluster)


def assert_cpus_come_back(ray, seconds: float = 20.0) -> None:
    """Every CPU is free again soon after a job (the encoder actors of a failed pipeline once
    held theirs until the garbage collector ran: the next pipeline then waited forever)."""
    deadline = time.monotonic() + seconds
    while ray.available_resources().get("CPU", 0) < ray.cluster_resources()["CPU"]:
        assert time.monotonic() < deadline, f"CPUs still held: {ray.available_resources()}"
        time.sleep(0.1)


def test_a_bad_record_met_in_a_later_split_gives_way_to_the_first_in_input_order(ray_cluster, tmp_path):
    """Workers run splits side by side: the first bad record one meets may not be the first in
    input order. The driver then counts the splits up to that one again, in order."""
    from toklane.corpus.jobs import _plan
    from toklane.corpus.ray_engine import _Runner
    from toklane.corpus.records import Options
    from toklane.corpus.work import Limits

    src = corpus(tmp_path / "in", bad_line=150)  # b.jsonl: bad lines 150 and 171, in different splits
    with pytest.raises(CorpusError) as local:
        tokenize_corpus(src / "b.jsonl", tmp_path / "local", text_field="text", shard_bytes=SPLIT_BYTES)
    limits = Limits("fail", output=str(tmp_path / "ray"))
    job = _plan(src / "b.jsonl", "qwen3.6", Options("text", None, want_ids=True), limits, 2, "ray", SPLIT_BYTES)
    past = len(b"".join((src / "b.jsonl").read_bytes().splitlines(keepends=True)[:171]))
    later = next(s.index for s in job.splits if s.pieces[0].start >= past)  # a split after both bad lines
    context = ray_cluster.data.DataContext.get_current()
    saved, context.execution_options.preserve_order = context.execution_options.preserve_order, True
    runner = _Runner(job, 2, fixed=False)
    try:
        with pytest.raises(CorpusError) as on_ray:
            runner._first_bad_record(later)
    finally:
        context.execution_options.preserve_order = saved
        ray_cluster.kill(runner.state)
    assert str(on_ray.value) == str(local.value) and ":150: not JSON" in str(on_ray.value)
    assert_cpus_come_back(ray_cluster)


def test_parquet_input_counts_and_tokenizes_like_the_local_engine(ray_cluster, tmp_path):
    texts = [("日本語 and code x = f(y) " * (i % 17)) if i != 70 else None for i in range(200)]
    table = pa.table({"id": list(range(200)), "text": texts})
    pq.write_table(table, tmp_path / "t.parquet", row_group_size=30)
    kw = {"text_field": "text", "on_error": "skip"}
    local = count_corpus(tmp_path / "t.parquet", split_bytes=SPLIT_BYTES, **kw)
    assert count_corpus(tmp_path / "t.parquet", split_bytes=SPLIT_BYTES, engine="ray", **kw) == local
    assert local.errors == ((str(tmp_path / "t.parquet"), 71, "field 'text' is NoneType, not text"),)
    ref = tokenize_corpus(tmp_path / "t.parquet", tmp_path / "local", shard_bytes=SPLIT_BYTES, **kw)
    got = tokenize_corpus(tmp_path / "t.parquet", tmp_path / "ray", shard_bytes=SPLIT_BYTES, engine="ray", **kw)
    same_but_shards(ref, got)
    assert rows_of(tmp_path / "ray") == rows_of(tmp_path / "local")


@settings(max_examples=examples(3), deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=records)
def test_shards_hold_every_field_under_the_local_engines_schema(ray_cluster, rows):
    with tempfile.TemporaryDirectory() as tmp:
        src = write_jsonl(Path(tmp) / "in.jsonl", rows * 3)
        kw = {"text_field": "text", "shard_bytes": 200}
        local = tokenize_corpus(src, Path(tmp) / "local", workers=1, **kw)
        on_ray = tokenize_corpus(src, Path(tmp) / "ray", engine="ray", **kw)
        assert_shards_hold(rows * 3, Path(tmp) / "ray", on_ray)
        same_but_shards(local, on_ray)
        assert read_back(Path(tmp) / "ray")[0] == read_back(Path(tmp) / "local")[0]


def test_a_late_field_and_values_of_mixed_kinds_on_ray(ray_cluster, tmp_path):
    rows = [{"text": f"r{i}", "v": i} for i in range(300)] + [{"text": "last", "v": "x", "late": {"a": [1]}}]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    kw = {"text_field": "text", "shard_bytes": SPLIT_BYTES}
    local = tokenize_corpus(src, tmp_path / "local", **kw)
    on_ray = tokenize_corpus(src, tmp_path / "ray", engine="ray", **kw)
    assert on_ray.json_columns == local.json_columns == ("v",) and on_ray.columns == ("text", "v", "late")
    assert rows_of(tmp_path / "ray") == rows_of(tmp_path / "local")
    assert_shards_hold(rows, tmp_path / "ray", on_ray)


def test_bad_records_and_missing_columns_on_ray(ray_cluster, tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"text": "fine"}\n{"text": "a\\ud800"}\n{"text": "also fine"}\n')
    for job in (count_corpus, lambda *a, **k: tokenize_corpus(a[0], tmp_path / "o", *a[1:], overwrite=True, **k)):
        with pytest.raises(CorpusError, match=r"s\.jsonl:2: field 'text' holds a lone surrogate"):
            job(path, "qwen3.6", text_field="text", engine="ray")
        stats = job(path, "qwen3.6", text_field="text", engine="ray", on_error="skip")
        assert stats.records == 2 and [(Path(p).name, n) for p, n, _ in stats.errors] == [("s.jsonl", 2)]
    pq.write_table(pa.table({"body": ["x"]}), tmp_path / "p.parquet")
    with pytest.raises(CorpusError, match="no column 'text'"):
        tokenize_corpus(tmp_path / "p.parquet", tmp_path / "p", text_field="text", engine="ray")
    with pytest.raises(CorpusError, match="no column 'text'"):
        count_corpus(tmp_path / "p.parquet", text_field="text", engine="ray")
    assert_cpus_come_back(ray_cluster)


def test_the_jobs_actors_end_when_its_driver_is_killed(tmp_path):
    """A local Ray started by the job goes with it (Ray's own fate sharing): no encoder goes on
    writing shards for a job that is gone."""
    pytest.importorskip("ray")
    from .test_corpus_files import _alive, _children

    src = write_jsonl(tmp_path / "in.jsonl", [{"text": f"record {i} " + "words " * 200} for i in range(40000)])
    args = [sys.executable, "-m", "toklane.cli", "tokenize", str(src), "--model", "qwen3.6", "--text-field", "text"]
    job = subprocess.Popen(
        [*args, "--output", str(tmp_path / "out"), "--engine", "ray", "--workers", "2"],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def descendants(pid: int) -> set[int]:
        found, todo = set(), [pid]
        while todo:
            kids = _children(todo.pop())
            found |= kids
            todo.extend(kids)
        return found

    family: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        encoders: set[int] = set()
        while not encoders and time.monotonic() < deadline and job.poll() is None:
            time.sleep(0.1)
            for p in descendants(job.pid):
                with contextlib.suppress(OSError):
                    if b"MapBatches(Encoder)" in Path(f"/proc/{p}/cmdline").read_bytes():
                        encoders.add(p)
        assert encoders, "the job's encoders did not start"
        family = descendants(job.pid)
        os.kill(job.pid, signal.SIGKILL)
        job.wait()
        killed = time.monotonic()
        while any(map(_alive, encoders)) and time.monotonic() < killed + 30:
            time.sleep(0.1)
        assert not any(map(_alive, encoders)), "the encoders outlived their job"
        shards = sorted((tmp_path / "out").glob("part-*"))
        time.sleep(1)
        assert sorted((tmp_path / "out").glob("part-*")) == shards
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(job.pid, signal.SIGKILL)
        for p in family:  # whatever Ray left (its agents end on their own, later)
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)


def test_cli_engine_ray_joins_a_running_cluster_and_counts_messages(ray_cluster, tmp_path):
    src = corpus(tmp_path / "in")
    address = ray_cluster.get_runtime_context().gcs_address
    args = ("count", str(src / "a.jsonl"), "--model", "qwen3.6", "--messages-field", "m", "--engine", "ray")
    proc = run(*args, "--ray-address", address, "--json")  # chat messages, rendered in the family's format
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == count_corpus(src / "a.jsonl", messages_field="m").to_json()


def test_without_ray_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ModuleNotFoundError
    monkeypatch.delitem(sys.modules, "toklane.corpus.ray_engine", raising=False)
    with pytest.raises(InvalidArgumentError, match=r'pip install "toklane\[ray\]"'):
        importlib.import_module("toklane.corpus.ray_engine")


# --------------------------------------------------------------------------- pure helpers (no Ray run)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(1, 4)), max_size=40))
def test_groups_are_the_maximal_runs_of_consecutive_lines_of_one_piece(ray_cluster, steps):
    from toklane.corpus.ray_engine import LINE, PIECE, SPLIT, _groups

    splits, pieces, lines, line = [], [], [], 0
    for s, p, gap in steps:  # rows in any order, lines going up by 1 (one run) or more (a new run)
        line += gap
        splits.append(s)
        pieces.append(p)
        lines.append(line)
    block = pa.table({SPLIT: pa.array(splits, pa.int32()), PIECE: pa.array(pieces, pa.int32()), LINE: lines})
    groups = list(_groups(block))
    assert [g[3] for g in groups] == sorted(g[3] for g in groups)
    covered = [i for g in groups for i in range(g[3], g[4])]
    assert covered == list(range(len(steps)))
    for s, p, first, start, stop in groups:
        assert first == lines[start]
        assert all((splits[i], pieces[i], lines[i]) == (s, p, first + i - start) for i in range(start, stop))
    for (*_, stop), (s, p, first, *_) in itertools.pairwise(groups):  # maximal: each run ends for a reason
        assert (splits[stop - 1], pieces[stop - 1], lines[stop - 1] + 1) != (s, p, first)


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.text(st.sampled_from("ab\n"), max_size=30), min_size=1, max_size=30), st.integers(1, 64))
def test_line_base_is_the_lines_before_a_piece(ray_cluster, texts, split_bytes):
    from toklane.corpus.inputs import plan_splits, read_chunks
    from toklane.corpus.ray_engine import _line_base

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.jsonl"
        path.write_bytes("".join(t.replace("\n", "") + "\n" for t in texts).encode())
        before = 0
        for split in plan_splits([str(path)], split_bytes):
            for piece in split.pieces:
                assert _line_base(piece) == before
                before += sum(len(items) for _, items in read_chunks(piece, None))
