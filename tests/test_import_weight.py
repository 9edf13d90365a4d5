"""The library without the server stack: ``pip install toklane`` (no ``serve`` extra) gives the library,
the CLI's non-serving commands and the engine plugins; only ``toklane serve`` needs FastAPI and uvicorn,
and says so in one line. Each case runs in a fresh interpreter where those packages cannot be imported."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

# What `toklane[serve]` installs (and what FastAPI brings), made unimportable in the child.
SERVER_STACK = ("fastapi", "starlette", "uvicorn", "fastapi_offline")

_BLOCK = f"""
import importlib.abc, sys

class _NoServerStack(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {SERVER_STACK!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, _NoServerStack())
"""


def _run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    program = _BLOCK + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", program, *args], capture_output=True, text=True, timeout=300, check=False
    )


def test_the_library_and_the_cli_work_without_the_server_stack(tmp_path: Path) -> None:
    data = tmp_path / "small.jsonl"
    data.write_text('{"text": "hello world"}\n{"text": "another line"}\n')
    result = _run(
        """
        import json, sys
        import toklane
        from toklane import cli

        tok = toklane.load_tokenizer("qwen3")
        assert tok.decode(tok.encode("hello world")) == "hello world"
        parsed = toklane.parse(tok, text="<think>a</think>b", reasoning="qwen3")
        assert (parsed.reasoning, parsed.content) == ("a", "b"), parsed
        assert cli.main(["count", "--model", "qwen3", "--jsonl-field", "text", sys.argv[1]]) == 0
        serve = cli.main(["serve"])
        loaded = sorted({m.partition(".")[0] for m in sys.modules} & {"fastapi", "starlette", "uvicorn"})
        print(json.dumps({"serve": serve, "loaded": loaded, "server": "toklane.server" in sys.modules}))
        """,
        str(data),
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report == {"serve": 2, "loaded": [], "server": False}, report
    assert result.stderr.startswith("toklane: error: the service needs fastapi, uvicorn and fastapi-offline (")
    assert result.stderr.strip().endswith('is not installed): pip install "toklane[serve]"'), result.stderr


def test_import_toklane_and_the_plugins_load_nothing_of_the_service() -> None:
    """The vLLM and SGLang plugins' modules import toklane's parsing and tokenizers, never toklane.server
    (vLLM and SGLang themselves bring FastAPI: checked here with the stack blocked where they are absent,
    and by module name where they are installed)."""
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, json, toklane, toklane.integrations.vllm, toklane.integrations.sglang; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('toklane.server'))))",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []
    bare = _run("import toklane, toklane.parsing, toklane.decoding, toklane.counting\nprint('ok')")
    assert bare.returncode == 0 and bare.stdout.strip() == "ok", bare.stderr


def test_import_load_encode_and_decode_import_no_numpy() -> None:
    """numpy (~50 ms of a cold start) is imported where an array is made (a flat batch, the corpus
    jobs, the numpy fallbacks), not by ``import toklane``, a bundled tokenizer's load from the disk
    cache, encoding or decoding lists: every bundled ranks vocabulary is loaded here twice (the first
    load may build the cache's images, which may use numpy: a second process then checks)."""
    code = """
        import json, sys
        import toklane
        before = "numpy" in sys.modules
        for name in ("qwen3.6", "qwen3", "deepseek-v4", "llama3", "cl100k_base", "o200k_base", "o200k_harmony"):
            tok = toklane.load_tokenizer(name)
            ids = tok.encode("hello world <|im_end|> 日本語 e\\u0301")
            assert tok.decode(ids) and tok.count("x y") == 2
        print(json.dumps({"at import": before, "after": "numpy" in sys.modules}))
        """
    _run(code)
    result = _run(code)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"at import": False, "after": False}


def test_import_toklane_and_counting_text_import_no_chat_rendering() -> None:
    """The chat package (family formats, template compilation: ~40 ms of a cold start) is imported by the
    first conversation rendered, not by ``import toklane`` or by counting a text; rendering one imports
    it and works."""
    result = _run(
        """
        import json, sys
        import toklane
        at_import = "toklane.chat" in sys.modules
        assert toklane.count_tokens("hello world", model="qwen3") == 2
        text_counted = "toklane.chat" in sys.modules
        n = toklane.count_tokens([{"role": "user", "content": "hi"}], model="qwen3")
        print(json.dumps({"at import": at_import, "text": text_counted, "chat": "toklane.chat" in sys.modules, "n": n}))
        """
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["n"] > 2 and {k: report[k] for k in ("at import", "text", "chat")} == {
        "at import": False,
        "text": False,
        "chat": True,
    }, report
