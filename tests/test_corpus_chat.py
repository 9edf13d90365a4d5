"""count_corpus / tokenize_corpus / ``toklane count --messages-field`` with a chat template of the
caller's (``chat_template=``, ``--chat-template``) and template variables (``chat_template_kwargs=``,
``--chat-template-kwargs``): every record counts as ``count_tokens`` counts it with the same options,
in this process, in worker processes and on Ray; a template's error is one clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toklane
from toklane.corpus import CorpusError, count_corpus, tokenize_corpus
from toklane.errors import ChatTemplateError, InvalidArgumentError

from .chat.helpers import template
from .test_cli import assert_clean_error, run
from .test_corpus import write_jsonl

QWEN3 = template("qwen3")
CONVERSATIONS = [
    [{"role": "user", "content": "hi there"}],
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "2+2?"}],
    [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "<think>\nlook it up\n</think>\n\nLet me check."},
        {"role": "user", "content": "日本語で"},
    ],
    [{"role": "user", "content": "a" * 300}, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "b"}],
]
#: A template that raises on a message reading "boom" (its line 2), else writes each message on a line.
RAISING = (
    "{%- for m in messages %}\n"
    "{%- if m.content == 'boom' %}{{ raise_exception('no booms here') }}{% endif %}\n"
    "{{- m.role }}: {{ m.content }}\n"
    "{%- endfor %}"
)


def _corpus(folder: Path, n: int = 24) -> tuple[Path, list[list[dict]]]:
    rows = [CONVERSATIONS[i % len(CONVERSATIONS)] for i in range(n)]
    return write_jsonl(folder / "chat.jsonl", [{"id": i, "m": m} for i, m in enumerate(rows)]), rows


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("kwargs", [None, {"enable_thinking": False}, {"enable_thinking": True}])
def test_a_custom_template_and_its_variables_count_as_count_tokens(tmp_path, workers, kwargs):
    path, rows = _corpus(tmp_path)
    options = {"chat_template": QWEN3, "chat_template_kwargs": kwargs, "add_generation_prompt": True}
    stats = count_corpus(path, "qwen3", messages_field="m", workers=workers, split_bytes=512, **options)
    expected = [toklane.count_tokens(m, "qwen3", **options) for m in rows]
    assert stats.records == len(rows) and stats.tokens == sum(expected)
    assert (stats.min, stats.max) == (min(expected), max(expected))
    # the options change the count: the template is not the family format, enable_thinking=False adds 4
    if kwargs == {"enable_thinking": False}:
        plain = count_corpus(
            path, "qwen3", messages_field="m", workers=1, chat_template=QWEN3, add_generation_prompt=True
        )
        assert stats.tokens == plain.tokens + 4 * len(rows)


def test_the_template_on_another_vocabulary_and_a_family_format_variable(tmp_path):
    path, rows = _corpus(tmp_path, 8)
    got = count_corpus(path, "deepseek-v4", messages_field="m", workers=1, chat_template=QWEN3)
    assert got.tokens == sum(toklane.count_tokens(m, "deepseek-v4", chat_template=QWEN3) for m in rows)
    # a variable the family format honours, without a template
    on = {"chat_template_kwargs": {"thinking": True}, "add_generation_prompt": True}
    got = count_corpus(path, "deepseek-v4", messages_field="m", workers=1, **on)
    assert got.tokens == sum(toklane.count_tokens(m, "deepseek-v4", **on) for m in rows)


def test_tokenize_corpus_takes_them_too(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    path, rows = _corpus(tmp_path, 6)
    options = {
        "chat_template": QWEN3,
        "chat_template_kwargs": {"enable_thinking": False},
        "add_generation_prompt": True,
    }
    out = tmp_path / "out"
    tokenize_corpus(path, out, "qwen3", messages_field="m", workers=1, **options)
    table = pq.read_table(sorted(out.glob("part-*.parquet"))[0])
    assert table.column("input_ids").to_pylist() == [toklane.encode_chat(m, "qwen3", **options) for m in rows]
    # other options are another job: its shards are not taken as this one's
    with pytest.raises(CorpusError, match="different job"):
        tokenize_corpus(path, out, "qwen3", messages_field="m", workers=1, chat_template=QWEN3)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_record_the_template_raises_on_is_a_bad_record_naming_file_line_and_template_line(tmp_path, workers):
    rows = [{"m": [{"role": "user", "content": "fine"}]}] * 3 + [{"m": [{"role": "user", "content": "boom"}]}]
    path = write_jsonl(tmp_path / "c.jsonl", rows + rows[:2])
    with pytest.raises(CorpusError) as info:
        count_corpus(path, "qwen3", messages_field="m", workers=workers, chat_template=RAISING)
    message = str(info.value)
    assert "c.jsonl:4:" in message and "line 2" in message and "no booms here" in message and "\n" not in message
    stats = count_corpus(path, "qwen3", messages_field="m", workers=workers, chat_template=RAISING, on_error="skip")
    assert stats.records == 5 and [line for _, line, _ in stats.errors] == [4]
    assert stats.tokens == 5 * toklane.count_tokens(rows[0]["m"], "qwen3", chat_template=RAISING)


def test_a_template_that_does_not_compile_fails_once_before_any_record(tmp_path):
    path, _ = _corpus(tmp_path, 2)
    with pytest.raises(ChatTemplateError, match=r"the chat_template given, line 2: .*"):
        count_corpus(path, "qwen3", messages_field="m", workers=2, chat_template="ok\n{% for %}")


@pytest.mark.parametrize(
    "options, needle",
    [
        ({"text_field": "t", "chat_template": QWEN3}, "chat_template applies to message lists"),
        ({"text_field": "t", "chat_template_kwargs": {"a": 1}}, "chat_template_kwargs applies to message lists"),
        ({"messages_field": "m", "chat_template": 3}, "must be a template's text or name"),
        ({"messages_field": "m", "chat_template_kwargs": ["x"]}, "must be a mapping"),
        ({"messages_field": "m", "chat_template_kwargs": {"not a name": 1}}, "keys must be variable names"),
        ({"messages_field": "m", "chat_template_kwargs": {"x": {1, 2}}}, "must hold JSON values"),
    ],
)
def test_bad_chat_options_are_one_clear_error(tmp_path, options, needle):
    path, _ = _corpus(tmp_path, 1)
    with pytest.raises(InvalidArgumentError, match=needle):
        count_corpus(path, "qwen3", workers=1, **options)


def test_ray_engine_counts_with_the_template(tmp_path):
    ray = pytest.importorskip("ray")
    pytest.importorskip("pyarrow")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="WARNING")
    try:
        path, rows = _corpus(tmp_path)
        options = {"chat_template": QWEN3, "chat_template_kwargs": {"enable_thinking": False}}
        got = count_corpus(path, "qwen3", messages_field="m", engine="ray", add_generation_prompt=True, **options)
        assert got.tokens == sum(toklane.count_tokens(m, "qwen3", add_generation_prompt=True, **options) for m in rows)
    finally:
        if started:
            ray.shutdown()


# --------------------------------------------------------------------------- CLI


def test_cli_corpus_count_with_a_template_file_and_variables(tmp_path):
    path, rows = _corpus(tmp_path)
    jinja = tmp_path / "qwen3.jinja"
    jinja.write_text(QWEN3, encoding="utf-8")
    kwargs = '{"enable_thinking": false}'
    proc = run(
        "count", str(path), "--model", "qwen3", "--messages-field", "m", "--workers", "2", "--json",
        "--chat-template", str(jinja), "--chat-template-kwargs", kwargs, "--add-generation-prompt",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    options = {"chat_template": QWEN3, "chat_template_kwargs": json.loads(kwargs), "add_generation_prompt": True}
    assert json.loads(proc.stdout)["total"] == sum(toklane.count_tokens(m, "qwen3", **options) for m in rows)


def test_cli_corpus_template_errors_are_one_line(tmp_path):
    path, _ = _corpus(tmp_path, 2)
    broken = tmp_path / "broken.jinja"
    broken.write_text("ok\n{% for %}", encoding="utf-8")
    base = ("count", str(path), "--model", "qwen3", "--messages-field", "m", "--workers", "1")
    proc = run(*base, "--chat-template", str(broken))
    assert_clean_error(proc, f"{broken}, line 2:")
    assert len(proc.stderr.strip().splitlines()) == 1
    raising = tmp_path / "raising.jinja"
    raising.write_text(RAISING, encoding="utf-8")
    boom = write_jsonl(tmp_path / "boom.jsonl", [{"m": [{"role": "user", "content": "boom"}]}])
    proc = run("count", str(boom), "--model", "qwen3", "--messages-field", "m", "--chat-template", str(raising))
    assert_clean_error(proc, "boom.jsonl:1:")
    assert "no booms here" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert_clean_error(run(*base, "--chat-template-kwargs", "[1]"), "expected a JSON object")
    assert_clean_error(run(*base, "--tools-schema", str(broken)), "--tools-schema applies to --messages")
    text = write_jsonl(tmp_path / "t.jsonl", [{"t": "x"}])
    assert_clean_error(
        run("count", str(text), "--model", "qwen3", "--text-field", "t", "--chat-template", str(broken)),
        "add --messages-field",
    )
