"""load_tokenizer's answers to user mistakes: missing paths, files of the wrong kind, mistyped names.

Each error is one line that says what was found and what is expected or the nearest right name,
the same from the library, the CLI and the service.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

import toklane
from toklane.server import create_app

EXPECTED = "expected a tokenizer.json, a Mistral tekken.json, a .tiktoken ranks file or a HF tokenizer folder"


def _load_error(spec, kind=toklane.TokenizerLoadError) -> str:
    with pytest.raises(kind) as info:
        toklane.load_tokenizer(spec)
    message = str(info.value)
    assert "\n" not in message, message
    return message


# --------------------------------------------------------------------------- missing paths


@pytest.mark.parametrize(
    "spec",
    ["/no/such/file", "./missing.tiktoken", "tokenizer.json", "models/qwen/tokenizer.json", "C:\\models\\tok", "gone/"],
)
def test_missing_path_says_no_such_file(spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    message = _load_error(spec)
    assert "no such file or folder" in message and repr(spec) in message
    assert "unknown tokenizer" not in message


def test_missing_pathlike_says_no_such_file(tmp_path):
    message = _load_error(tmp_path / "missing.json")
    assert "no such file or folder" in message


def test_mistyped_file_name_suggests_the_file_beside_it(tmp_path, deepseek_json):
    shutil.copy(deepseek_json, tmp_path / "tokenizer.json")
    (tmp_path / "tokenizer_config.json").write_text("{}")
    message = _load_error(str(tmp_path / "tokenizer.jsn"))
    assert f"did you mean {str(tmp_path / 'tokenizer.json')!r}?" in message
    assert "tokenizer_config.json" not in message  # never suggested: it is not a tokenizer


def test_home_relative_path(tmp_path, deepseek_json, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    shutil.copy(deepseek_json, tmp_path / "tokenizer.json")
    assert toklane.load_tokenizer("~/tokenizer.json").encode("hi") == toklane.load_tokenizer("deepseek-v4").encode("hi")
    message = _load_error("~/tokenizer.jsn")
    assert "no such file or folder" in message and str(tmp_path / "tokenizer.json") in message


def test_missing_folder_is_named(tmp_path):
    message = _load_error(str(tmp_path / "nope" / "tokenizer.json"))
    assert f"its folder {str(tmp_path / 'nope')!r} does not exist either" in message


# --------------------------------------------------------------------------- mistyped names


@pytest.mark.parametrize(
    "spec, nearest",
    [("gpt4o", "gpt-4o"), ("qwen36", "qwen3.6"), ("lama3", "llama3"), ("deepseekv4", "deepseek-v4"), ("o200k", None)],
)
def test_unknown_name_suggests_the_nearest_names(spec, nearest):
    with pytest.raises(toklane.UnknownTokenizerError) as info:
        toklane.load_tokenizer(spec)
    error = info.value
    message = str(error)
    assert "\n" not in message
    assert error.suggestions, message
    if nearest is not None:
        assert error.suggestions[0] == nearest
        assert message.startswith(f"unknown tokenizer {spec!r}; did you mean {nearest}")
    for suggestion in error.suggestions:  # every suggestion is a name that loads
        assert toklane.tokenizer.registry.resolve_name(suggestion) is not None
    assert len(set(map(toklane.tokenizer.registry.resolve_name, error.suggestions))) == len(error.suggestions)


def test_model_id_of_an_unknown_family_is_an_unknown_name_not_a_missing_file():
    message = _load_error("someorg/SomeModel-7B", toklane.UnknownTokenizerError)
    assert "no such file" not in message and "or pass a path" in message


def test_far_names_get_no_suggestion_and_huge_names_no_work():
    with pytest.raises(toklane.UnknownTokenizerError) as info:
        toklane.load_tokenizer("zzzzzzzz")
    assert info.value.suggestions == [] and "did you mean" not in str(info.value)
    with pytest.raises(toklane.UnknownTokenizerError) as info:
        toklane.load_tokenizer("gpt-4o" * 50_000)  # difflib is quadratic: not run on this
    assert info.value.suggestions == []


# --------------------------------------------------------------------------- files of the wrong kind


@pytest.mark.parametrize(
    "name, content, found",
    [
        ("data.jsonl", b'{"text": "a"}\n{"text": "b"}\n', "found JSON Lines data"),
        ("notes.txt", b"hello world\nsecond line\n", "found text starting 'hello world'"),
        ("empty.bin", b"", "found an empty file"),
        ("blank", b"  \n\n", "found an empty file"),
        ("tokenizer.model", b"\n\x05hello\x15\x00\x00\x80?\x18\x01", "SentencePiece"),
        ("weights.bin", b"\x00\x01\x02\x03" * 64, "found binary data"),
        ("config.json", json.dumps({"architectures": ["X"], "model_type": "x"}).encode(), "a model config.json"),
        ("vocab.json", json.dumps({"a": 0, "b": 1}).encode(), "a token-to-id map (vocab.json)"),
        ("list.json", b"[1, 2]", "found JSON holding an array"),
        ("other.json", json.dumps({"foo": 1, "bar": [2]}).encode(), "a JSON object with keys 'foo', 'bar'"),
    ],
)
def test_a_file_of_no_known_format_says_what_it_holds(tmp_path, name, content, found):
    path = tmp_path / name
    path.write_bytes(content)
    message = _load_error(str(path))
    assert found in message and str(path) in message, message
    assert "<base64> <rank>'" not in message or "has '<base64> <rank>' lines" in message
    assert "line 1 is not" not in message


def test_tokenizer_config_points_to_its_folder(tmp_path, deepseek_json):
    shutil.copy(deepseek_json, tmp_path / "tokenizer.json")
    config = tmp_path / "tokenizer_config.json"
    config.write_text(json.dumps({"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": 4096}))
    message = _load_error(str(config))
    assert f"pass its folder {str(tmp_path)!r}, which has tokenizer.json" in message
    assert toklane.load_tokenizer(str(tmp_path)).encode("hi") == toklane.load_tokenizer("deepseek-v4").encode("hi")


@pytest.mark.parametrize(
    "files, found",
    [
        ({"tokenizer.model": b"\n\x05hello", "tokenizer_config.json": b"{}"}, "not a valid SentencePiece model"),
        ({"vocab.json": b"{}", "merges.txt": b"#version: 0.2\n"}, "vocab.json + merges.txt"),
        ({"tokenizer_config.json": b"{}", "config.json": b"{}"}, "tokenizer_config.json but no tokenizer.json"),
        ({"a.tiktoken": b"", "b.tiktoken": b""}, "folder holds 2 .tiktoken files (a.tiktoken, b.tiktoken)"),
        ({"README.md": b"# hi"}, "no tokenizer.json, tekken.json or single .tiktoken file (found: README.md)"),
        ({}, "(found: nothing)"),
    ],
)
def test_a_folder_without_a_tokenizer_says_what_it_holds(tmp_path, files, found):
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    message = _load_error(str(tmp_path))
    assert found in message, message


def test_format_is_told_from_content_not_name(tmp_path, deepseek_json, qwen_package):
    """A tokenizer.json or .tiktoken file under another name still loads as what it is."""
    hf_copy = tmp_path / "deepseek.tok"
    shutil.copy(deepseek_json, hf_copy)
    ranks_copy = tmp_path / "qwen-ranks.txt"
    shutil.copy(qwen_package / "resources" / "qwen.tiktoken", ranks_copy)
    text = "Hello 世界 <think>x</think>"
    assert toklane.load_tokenizer(str(hf_copy)).encode(text) == toklane.load_tokenizer("deepseek-v4").encode(text)
    assert toklane.load_tokenizer(str(ranks_copy)).encode(text) == toklane.load_tokenizer("qwen3").encode(text)


# --------------------------------------------------------------------------- the same through the CLI and the service


def _cli(*args: str, cwd) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toklane.cli", *args], input="hi", capture_output=True, text=True, timeout=120, cwd=cwd
    )


@pytest.mark.parametrize(
    "model, needle",
    [
        ("gpt4o", "unknown tokenizer 'gpt4o'; did you mean gpt-4o"),
        ("/no/such/tokenizer.json", "cannot load tokenizer from '/no/such/tokenizer.json': no such file or folder"),
        ("data.jsonl", "found JSON Lines data"),
    ],
)
def test_cli_says_the_same_in_one_line(tmp_path, model, needle):
    (tmp_path / "data.jsonl").write_text('{"a": 1}\n{"a": 2}\n')
    proc = _cli("count", "--model", model, "-", cwd=tmp_path)
    assert proc.returncode == 2, proc
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("toklane: error: ") and needle in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr


def test_service_suggests_the_nearest_model():
    with TestClient(create_app(["qwen3"]), raise_server_exceptions=False) as client:
        response = client.post("/v1/count", json={"model": "gpt4o", "text": "hi"})
        assert response.status_code == 404, response.text
        error = response.json()["error"]
        assert error["type"] == "model_not_found"
        assert "'gpt4o'" in error["message"] and "did you mean" in error["message"] and "gpt-4o" in error["message"]
        # A request never makes the server read a path: a path is just an unknown model.
        response = client.post("/v1/count", json={"model": "/etc/passwd", "text": "hi"})
        assert response.status_code == 404 and "no such file" not in response.text
