"""The README's quickstart does what it says: the Python block runs as pasted, and every curl
example, run with curl against a live server started as the README starts it, prints the
answer written under it (``…`` stands for a generated part such as a call id)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.server.live import live_server

README = Path(__file__).resolve().parents[1] / "README.md"


def section(heading: str) -> str:
    """The README text under ``heading`` up to the next heading of the same or a higher level."""
    level = len(heading.split(" ")[0])
    out: list[str] = []
    inside = in_code = False
    for line in README.read_text().split("\n"):
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and re.match(f"#{{1,{level}}} ", line):
            if inside:
                break
            inside = line == heading
        if inside:
            out.append(line)
    assert out, f"no {heading!r} section in the README"
    return "\n".join(out)


def fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)\n```", text, re.S)


def test_python_quickstart_runs_as_pasted(capsys: pytest.CaptureFixture[str]) -> None:
    (block,) = fenced(section("### Python"), "python")
    exec(compile(block, "README.md (Python quickstart)", "exec"), {"__name__": "readme"})
    printed = capsys.readouterr().out.splitlines()
    # what the block's comments say its prints show
    assert printed == ["42", 'get_weather {"city": "Paris"}', "'Hello' False", "' <think>' False"]


def curl_examples() -> tuple[list[str], list[tuple[str, str]]]:
    """The ``--model`` names of the serve line, and (curl command, documented answer) pairs."""
    (block,) = fenced(section("### HTTP"), "bash")
    lines = block.split("\n")
    serve = next(line for line in lines if line.startswith("toklane serve"))
    models = re.findall(r"--model (\S+)", serve)
    examples, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("curl "):
            i += 1
            continue
        command = [lines[i]]
        while command[-1].endswith("\\") or "".join(command).count("'") % 2:  # continued, or a quote open
            i += 1
            command.append(lines[i])
        i += 1
        answer = []
        while i < len(lines) and lines[i].startswith("#"):
            answer.append(lines[i].lstrip("#").strip())
            i += 1
        examples.append(("\n".join(command), "".join(answer)))
    return models, examples


def test_the_quickstart_has_curl_examples() -> None:
    models, examples = curl_examples()
    assert models and len(examples) >= 3
    assert all(answer for _, answer in examples), "every curl example shows its answer"


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_examples_print_the_documented_answers() -> None:
    models, examples = curl_examples()
    with live_server(tuple(models)) as port:
        for command, answer in examples:
            command = command.replace("localhost:8000", f"127.0.0.1:{port}").replace("\\\n", " ")
            got = subprocess.run(
                ["bash", "-c", command], capture_output=True, text=True, timeout=60, check=True
            ).stdout.strip()
            pattern = ".*?".join(re.escape(part) for part in answer.split("…"))
            assert re.fullmatch(pattern, got, re.S), f"{shlex.split(command)[0:3]}...\nREADME: {answer}\ngot:    {got}"


def test_corpus_example_runs_as_pasted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    pytest.importorskip("pyarrow")
    import json

    import toklane

    (block,) = fenced(section("### Corpora"), "python")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    texts = ["Hello world", "日本語 and code: def f(x): return x", "a " * 9000]
    (corpus / "a.jsonl").write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "README.md (corpus example)", "exec"), {"__name__": "__main__"})
    counts = sorted(len(toklane.load_tokenizer("qwen3.6").encode(t)) for t in texts)
    first, second = capsys.readouterr().out.splitlines()
    assert first.split() == ["3", str(sum(counts)), str(counts[1]), str(counts[2]), "1"]
    assert second == "2 shards/part-00000.parquet"
