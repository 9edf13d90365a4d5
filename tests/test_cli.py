"""The toklane CLI, run as a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import toklane


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toklane.cli", *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def assert_clean_error(proc: subprocess.CompletedProcess[str], needle: str) -> None:
    assert proc.returncode == 2, proc
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("toklane: error:") and needle in proc.stderr, proc.stderr


def test_version_and_help():
    assert run("--version").stdout.strip() == f"toklane {toklane.__version__}"
    out = run("--help").stdout
    for command in ("serve", "parse", "count", "tokenize", "models", "formats", "bench"):
        assert command in out


def test_models_json():
    proc = run("models", "--json")
    assert proc.returncode == 0
    rows = json.loads(proc.stdout)
    assert [r["name"] for r in rows] == toklane.bundled_names()
    assert "gpt-oss" in next(r for r in rows if r["name"] == "o200k_harmony")["aliases"]


def test_count_files_and_stdin(tmp_path):
    a = tmp_path / "a.txt"
    a.write_text("Hello world, 日本語!")
    b = tmp_path / "b.txt"
    b.write_text("<|im_start|>user\nhi<|im_end|>")
    tok = toklane.load_tokenizer("qwen3")
    proc = run("count", str(a), str(b), "--model", "qwen3", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["files"] == [
        {"path": str(a), "count": tok.count(a.read_text())},
        {"path": str(b), "count": tok.count(b.read_text())},
    ]
    assert out["total"] == sum(f["count"] for f in out["files"]) and out["model"] == "qwen3"
    plain = run("count", str(a), str(b), "--model", "qwen3").stdout.splitlines()
    assert plain[-1].split() == [str(out["total"]), "total"]
    assert run("count", "-", "--model", "qwen3", stdin="Hello world, 日本語!").stdout.split()[0] == str(
        tok.count("Hello world, 日本語!")
    )


def test_count_jsonl_and_messages(tmp_path):
    msgs = [{"role": "user", "content": "hi there"}]
    jl = tmp_path / "data.jsonl"
    jl.write_text(json.dumps({"t": "some text"}) + "\n\n" + json.dumps({"t": msgs}) + "\n")
    expected = toklane.count_tokens("some text", "llama3") + toklane.count_tokens(msgs, "llama3")
    proc = run("count", str(jl), "--model", "llama3", "--jsonl-field", "t", "--json")
    assert json.loads(proc.stdout)["total"] == expected
    m = tmp_path / "chat.json"
    m.write_text(json.dumps({"messages": msgs}))
    proc = run("count", str(m), "--model", "gpt-oss", "--messages", "--add-generation-prompt", "--json")
    assert json.loads(proc.stdout)["total"] == toklane.count_tokens(msgs, "gpt-oss", add_generation_prompt=True)


TEMPLATES = Path(__file__).parent / "chat" / "templates"
WEATHER = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]


def test_count_messages_with_a_template_file_and_kwargs(tmp_path):
    """--chat-template FILE and --chat-template-kwargs count as count_tokens(chat_template=, chat_template_kwargs=)."""
    msgs = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris?"}]
    m = tmp_path / "chat.json"
    m.write_text(json.dumps(msgs))
    template = str(TEMPLATES / "qwen3.jinja")
    text = (TEMPLATES / "qwen3.jinja").read_text(encoding="utf-8")
    base = ("count", str(m), "--model", "qwen3", "--messages", "--add-generation-prompt", "--json")
    counts = {}
    for kwargs in (None, {"enable_thinking": False}):
        extra = ("--chat-template-kwargs", json.dumps(kwargs)) if kwargs else ()
        proc = run(*base, "--chat-template", template, *extra)
        assert proc.returncode == 0, proc.stderr
        counts[bool(kwargs)] = json.loads(proc.stdout)["total"]
        expected = toklane.count_tokens(
            msgs, "qwen3", add_generation_prompt=True, chat_template=text, chat_template_kwargs=kwargs
        )
        assert counts[bool(kwargs)] == expected
    # enable_thinking=False closes an empty think block in the generation prompt: "<think>\n\n</think>\n\n"
    assert counts[True] > counts[False]
    # tools: from --tools-schema, or from a saved request's "tools"
    schema = tmp_path / "tools.json"
    schema.write_text(json.dumps(WEATHER))
    expected = toklane.count_tokens(msgs, "qwen3", tools=WEATHER, chat_template=text, add_generation_prompt=True)
    assert expected > counts[False]
    proc = run(*base, "--chat-template", template, "--tools-schema", str(schema))
    assert json.loads(proc.stdout)["total"] == expected, proc.stderr
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"model": "qwen3", "messages": msgs, "tools": WEATHER}))
    proc = run("count", str(request), *base[2:], "--chat-template", template)
    assert json.loads(proc.stdout)["total"] == expected, proc.stderr
    # --jsonl-field message lists take the same options
    jl = tmp_path / "chats.jsonl"
    jl.write_text(json.dumps({"m": msgs}) + "\n" + json.dumps({"m": "plain text"}) + "\n")
    proc = run(
        "count", str(jl), "--model", "qwen3", "--jsonl-field", "m", "--json", "--add-generation-prompt",
        "--chat-template", template, "--chat-template-kwargs", '{"enable_thinking": false}',
    )  # fmt: skip
    assert json.loads(proc.stdout)["total"] == counts[True] + toklane.count_tokens("plain text", "qwen3")


def test_count_messages_with_a_named_template(tmp_path):
    """--chat-template NAME picks one of a folder's named templates (tokenizer_config.json's list)."""
    chatml = (
        "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    tool_use = "{% for t in tools %}TOOL {{ t.function.name }}\n{% endfor %}" + chatml
    folder = tmp_path / "model"
    folder.mkdir()
    shutil.copy(toklane.load_tokenizer("deepseek-v4").source, folder / "tokenizer.json")
    config = {"chat_template": [{"name": "default", "template": chatml}, {"name": "tool_use", "template": tool_use}]}
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    msgs = [{"role": "user", "content": "hi"}]
    m = tmp_path / "chat.json"
    m.write_text(json.dumps(msgs))
    base = ("count", str(m), "--model", str(folder), "--messages", "--json")
    default = json.loads(run(*base).stdout)["total"]
    assert default == toklane.count_tokens(msgs, str(folder))
    schema = tmp_path / "tools.json"
    schema.write_text(json.dumps(WEATHER))
    proc = run(*base, "--chat-template", "tool_use", "--tools-schema", str(schema))
    assert proc.returncode == 0, proc.stderr
    named = json.loads(proc.stdout)["total"]
    assert named == toklane.count_tokens(msgs, str(folder), chat_template="tool_use", tools=WEATHER) > default
    assert_clean_error(run(*base, "--chat-template", "rag"), "its named templates: default, tool_use")


def test_count_chat_option_errors_are_one_line(tmp_path):
    m = tmp_path / "chat.json"
    m.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    base = ("count", str(m), "--model", "qwen3", "--messages")
    broken = tmp_path / "broken.jinja"
    broken.write_text("{{ messages[0].content }}\n{{ raise_exception('no, thanks') }}\n")
    for args, needle in [
        (("--chat-template-kwargs", "{enable_thinking: false}"), "--chat-template-kwargs: not JSON"),
        (("--chat-template-kwargs", "[1]"), "--chat-template-kwargs: expected a JSON object"),
        (("--chat-template-kwargs", '{"1x": 1}'), "keys must be variable names"),
        (("--chat-template", "tool_use"), "no such file, and 'qwen3' has no named templates"),
        (("--chat-template", str(tmp_path / "missing.jinja")), "no such file"),
        (("--chat-template", str(broken)), f"{broken}, line 2: raised: no, thanks"),
        (("--tools-schema", str(m)), "chat.json"),
    ]:
        assert_clean_error(run(*base, *args), needle)
    assert_clean_error(
        run("count", str(m), "--model", "qwen3", "--chat-template-kwargs", "{}"),
        "--chat-template-kwargs apply to message lists: add --messages",
    )
    # the corpus counter takes --chat-template / --chat-template-kwargs (tests/test_corpus_chat.py), not tools
    assert_clean_error(
        run("count", str(tmp_path), "--model", "qwen3", "--messages-field", "m", "--tools-schema", str(m)),
        "--tools-schema applies to --messages/--jsonl-field counting, not to the corpus counter",
    )


@pytest.mark.parametrize(
    "args, needle",
    [
        (("count", "/no/such/file", "--model", "qwen3"), "cannot read /no/such/file"),
        (("count", "-", "--model", "no-such-model"), "unknown tokenizer 'no-such-model'"),
        (("count", "-", "--model", "qwen3", "--messages"), "expected a JSON list of messages"),
        (("count", "-", "--model", "qwen3", "--jsonl-field", "x"), "no field 'x'"),
        (("bench", "nonexistent-benchmark"), "unknown benchmark"),
    ],
)
def test_errors_are_one_line_without_traceback(args, needle):
    assert_clean_error(run(*args, stdin='{"y": 1}\n'), needle)


def test_bench_outside_a_checkout_is_a_clean_error(tmp_path):
    assert_clean_error(run("bench", "--dir", str(tmp_path)), "no benchmarks folder")


def test_bench_from_an_installed_package_says_the_scripts_ship_with_the_repository(tmp_path):
    """An installed copy of the package (no checkout around it) has no benchmarks: one line saying
    where they are and how to run them, not a path under site-packages."""
    site = tmp_path / "lib" / "python3" / "site-packages"
    package = Path(toklane.__file__).resolve().parent
    shutil.copytree(package, site / "toklane", ignore=shutil.ignore_patterns("__pycache__"))
    proc = subprocess.run(
        [sys.executable, "-m", "toklane.cli", "bench", "--quick"],
        env={**os.environ, "PYTHONPATH": str(site)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert_clean_error(proc, "the benchmarks ship with toklane's source repository, not with the installed package")
    assert "pip install -e '.[bench]'" in proc.stderr and proc.stderr.count("\n") == 1


def test_bench_finds_the_checkouts_scripts():
    from toklane import cli

    root = Path(__file__).resolve().parents[1]
    if Path(cli.__file__).resolve().parent != root / "src" / "toklane":
        pytest.skip("toklane is not installed from this checkout")
    assert cli._benchmarks_dir(None) == root / "benchmarks"


def test_usage_errors_exit_2():
    proc = run("count")
    assert proc.returncode == 2 and "required" in proc.stderr


OUTPUT = (
    "<think>\nCheck the weather.\n</think>\n\nOn it.\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
)


def test_parse_whole_and_stream(tmp_path):
    f = tmp_path / "out.txt"
    f.write_text(OUTPUT)
    proc = run("parse", str(f), "--model", "qwen3.6", "--reasoning", "qwen3", "--tools", "hermes")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    expected = toklane.parse(toklane.load_tokenizer("qwen3.6"), text=OUTPUT, reasoning="qwen3", tools="hermes")
    assert result["reasoning"] == expected.reasoning and result["content"] == expected.content
    assert [c["function"] for c in result["tool_calls"]] == [{"name": "get_weather", "arguments": '{"city": "Paris"}'}]
    stream = run(
        "parse", "-", "--model", "qwen3.6", "--reasoning", "qwen3", "--tools", "hermes", "--stream", stdin=OUTPUT
    )
    deltas = [json.loads(line) for line in stream.stdout.splitlines()]
    assert "".join(d.get("reasoning_content", "") for d in deltas) == expected.reasoning
    assert "".join(d.get("content", "") for d in deltas) == expected.content
    args = "".join(c["function"].get("arguments", "") for d in deltas for c in d.get("tool_calls", []))
    assert args == '{"city": "Paris"}'


def test_parse_token_ids(tmp_path):
    ids = toklane.load_tokenizer("qwen3.6").encode(OUTPUT)
    schema = tmp_path / "tools.json"
    schema.write_text(json.dumps([{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]))
    for stdin, extra in ((json.dumps(ids), ()), (" ".join(map(str, ids)), ("--stream",))):
        proc = run(
            "parse",
            "--model",
            "qwen3.6",
            "--reasoning",
            "qwen3",
            "--tools",
            "hermes",
            "--ids",
            "--tools-schema",
            str(schema),
            *extra,
            stdin=stdin,
        )
        assert proc.returncode == 0, proc.stderr
        assert "get_weather" in proc.stdout and "Check the weather." in proc.stdout


def test_formats_command():
    out = json.loads(run("formats", "--json").stdout)
    assert [r["name"] for r in out["reasoning"]] == toklane.reasoning_formats()
    assert [r["name"] for r in out["tools"]] == toklane.tool_formats()
    assert out == toklane.format_catalog()
    hermes = next(r for r in out["tools"] if r["name"] == "hermes")
    assert "<tool_call>" in hermes["description"] and "qwen25" in hermes["aliases"]
    listing = run("formats").stdout
    assert "hermes" in listing and "aliases: qwen, qwen25, qwen3_json" in listing


@pytest.mark.parametrize(
    "args, stdin, needle",
    [
        (("parse", "--model", "qwen3", "--tools", "nope"), "x", "unknown"),
        (("parse", "--model", "qwen3", "--ids"), "1 2 x", "not a token id"),
        (("parse", "--model", "qwen3", "--ids"), "99999999", "invalid token id"),
        (("parse", "--model", "qwen3", "--tools", "hermes", "--tools-schema", "/no/file"), "x", "cannot read"),
    ],
)
def test_parse_errors(args, stdin, needle):
    assert_clean_error(run(*args, stdin=stdin), needle)


def test_serve_limit_options_are_checked():
    help_text = run("serve", "--help").stdout
    for option in ("--max-chunks", "--body-timeout", "--header-timeout", "--max-connections", "--max-body-mb"):
        assert option in help_text
    assert_clean_error(run("serve", "--max-chunks", "0"), "max_chunks must be a positive integer")
    assert_clean_error(run("serve", "--body-timeout", "-1"), "body_timeout must be a positive number")


def test_serve_enforces_its_limit_options():
    import socket
    import time

    import httpx

    from tests.server.live import error_of, free_port, read_all, stop

    port = free_port()
    cmd = [sys.executable, "-m", "toklane.cli", "serve", "--port", str(port), "--log-level", "warning"]
    cmd += ["--max-chunks", "4", "--header-timeout", "0.5", "--max-connections", "2"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.2)
        r = httpx.post(url + "/v1/parse", json={"chunks": ["a"] * 5})
        assert r.status_code == 413 and "limit of 4" in r.json()["error"]["message"]
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"GET /health HTTP/1.1\r\n")
            assert error_of(read_all(s))[0] == 408
        # two connections with a request in progress (idle ones would make room for a new one)
        head = b"POST /v1/count HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 99\r\n\r\n{"
        with socket.create_connection(("127.0.0.1", port)) as a, socket.create_connection(("127.0.0.1", port)) as b:
            a.sendall(head)
            b.sendall(head)
            time.sleep(0.1)
            assert httpx.get(url + "/health").status_code == 503
    finally:
        stop(proc)
