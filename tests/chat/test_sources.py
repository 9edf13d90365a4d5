"""A tokenizer's own chat template is found where transformers finds it, and is used by default.

User folders (``tokenizer_config.json``'s ``chat_template``, a string or named templates;
``chat_template.jinja`` and ``additional_chat_templates/`` beside it, which win), live transformers
tokenizers (their ``chat_template``), bundled tokenizers (their family formats unless
``chat_template=`` is given). Each is checked against ``AutoTokenizer.from_pretrained(folder)``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import toklane
from toklane.errors import ChatTemplateError

from .helpers import template

transformers = pytest.importorskip("transformers")

MESSAGES = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "What is 2+2?"},
    {"role": "assistant", "content": "4"},
    {"role": "user", "content": "And 3+3?"},
]
CHATML = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
DS_BOS, DS_EOS = "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"
CONFIG = {
    "tokenizer_class": "PreTrainedTokenizerFast",
    "bos_token": {"__type": "AddedToken", "content": DS_BOS, "lstrip": False, "normalized": True},
    "eos_token": DS_EOS,
}


@pytest.fixture(scope="module")
def vocab(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """DeepSeek-V4's tokenizer.json, copied once (folders link to it: a loaded path is its own file)."""
    folder = tmp_path_factory.mktemp("vocab")
    shutil.copy(toklane.load_tokenizer("deepseek-v4").source, folder / "tokenizer.json")
    return folder / "tokenizer.json"


def _folder(base: Path, vocab: Path, config: dict | None = None, **files: str) -> Path:
    base.mkdir(parents=True, exist_ok=True)
    os.link(vocab, base / "tokenizer.json")
    if config is not None:
        (base / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    for name, text in files.items():
        path = base / name.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return base


def _hf_ids(folder: Path, messages, **options) -> list[int]:
    hf = transformers.AutoTokenizer.from_pretrained(str(folder))
    return hf.apply_chat_template(messages, return_dict=False, **options)


def test_a_folder_template_is_used_and_counts_as_transformers(tmp_path, vocab):
    """The issue's case: a ChatML template on a DeepSeek vocabulary renders as ChatML, not DeepSeek."""
    folder = _folder(tmp_path / "m", vocab, {**CONFIG, "chat_template": CHATML})
    for gen in (False, True):
        expected = _hf_ids(folder, MESSAGES, add_generation_prompt=gen)
        assert toklane.encode_chat(MESSAGES, str(folder), add_generation_prompt=gen) == expected
        assert toklane.count_tokens(MESSAGES, str(folder), add_generation_prompt=gen) == len(expected)
    family = toklane.count_tokens(MESSAGES, "deepseek-v4")
    assert toklane.count_tokens(MESSAGES, str(folder)) != family
    assert toklane.render_chat(MESSAGES, str(folder / "tokenizer.json")).startswith("<|im_start|>system\n")
    tok = toklane.load_tokenizer(str(folder))
    assert tok.chat_template == CHATML
    assert tok.apply_chat_template(MESSAGES, return_dict=False) == _hf_ids(folder, MESSAGES)


def test_real_template_and_special_tokens_from_the_folder(tmp_path, vocab):
    folder = _folder(tmp_path / "m", vocab, {**CONFIG, "chat_template": template("deepseek-v3.1")})
    for gen in (False, True):
        expected = _hf_ids(folder, MESSAGES, add_generation_prompt=gen)
        assert expected[0] == toklane.load_tokenizer("deepseek-v4").special_tokens[DS_BOS]  # bos_token from config
        assert toklane.encode_chat(MESSAGES, str(folder), add_generation_prompt=gen) == expected


def test_chat_template_jinja_wins_and_named_templates(tmp_path, vocab):
    folder = _folder(
        tmp_path / "m",
        vocab,
        {**CONFIG, "chat_template": "config {{ messages|length }}"},
        **{"chat_template.jinja": "file {{ messages|length }}", "additional_chat_templates__tool_use.jinja": "tools"},
    )
    hf = transformers.AutoTokenizer.from_pretrained(str(folder))
    assert hf.apply_chat_template(MESSAGES, tokenize=False) == "file 4"
    assert toklane.render_chat(MESSAGES, str(folder)) == "file 4"
    weather = [{"type": "function", "function": {"name": "w", "parameters": {"type": "object"}}}]
    assert toklane.render_chat(MESSAGES, str(folder), tools=weather) == "tools"
    assert hf.apply_chat_template(MESSAGES, tools=weather, tokenize=False) == "tools"
    assert toklane.render_chat(MESSAGES, str(folder), chat_template="tool_use") == "tools"  # by name
    assert toklane.render_chat(MESSAGES, str(folder), chat_template="given {{ 1 }}") == "given 1"  # by text
    assert toklane.load_tokenizer(str(folder)).chat_template == {
        "default": "file {{ messages|length }}",
        "tool_use": "tools",
    }


def test_named_templates_in_the_config(tmp_path, vocab):
    named = [{"name": "default", "template": "d"}, {"name": "rag", "template": "r {{ documents|length }}"}]
    folder = _folder(tmp_path / "m", vocab, {**CONFIG, "chat_template": named})
    assert toklane.render_chat(MESSAGES, str(folder)) == "d"
    assert (
        toklane.render_chat(MESSAGES, str(folder), chat_template="rag", documents=[{"title": "t", "text": "x"}])
        == "r 1"
    )
    nodefault = _folder(tmp_path / "n", vocab, {**CONFIG, "chat_template": named[1:]})
    with pytest.raises(ChatTemplateError, match="none is named 'default'; pass chat_template= one of rag"):
        toklane.count_tokens(MESSAGES, str(nodefault))


def test_a_changed_template_file_is_read_again(tmp_path, vocab):
    folder = _folder(tmp_path / "m", vocab, CONFIG, **{"chat_template.jinja": "one"})
    assert toklane.render_chat(MESSAGES, str(folder)) == "one"
    path = folder / "chat_template.jinja"
    path.write_text("two two", encoding="utf-8")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    assert toklane.render_chat(MESSAGES, str(folder)) == "two two"


def test_bad_files_are_clear_errors(tmp_path, vocab):
    folder = _folder(tmp_path / "m", vocab, {**CONFIG, "chat_template": 42})
    with pytest.raises(ChatTemplateError, match=r"tokenizer_config\.json: chat_template must be a string or a list"):
        toklane.count_tokens(MESSAGES, str(folder))
    broken = _folder(tmp_path / "b", vocab, CONFIG, **{"chat_template.jinja": "a\n{% for %}"})
    with pytest.raises(ChatTemplateError, match=r"chat_template.jinja, line 2: has a syntax error"):
        toklane.count_tokens(MESSAGES, str(broken))


def test_a_folder_without_a_template_uses_the_family_format(tmp_path, vocab):
    folder = _folder(tmp_path / "m", vocab, CONFIG)
    tok = toklane.load_tokenizer(str(folder))
    assert tok.chat_template is None
    assert toklane.render_chat(MESSAGES, str(folder)) == toklane.render_chat(MESSAGES, "deepseek-v4")


def test_a_live_transformers_tokenizer_brings_its_template(vocab):
    from transformers import PreTrainedTokenizerFast

    hf = PreTrainedTokenizerFast(tokenizer_file=str(vocab), bos_token=DS_BOS, eos_token=DS_EOS)
    hf.chat_template = "{{ bos_token }}" + CHATML
    expected = hf.apply_chat_template(MESSAGES, return_dict=False)
    assert toklane.encode_chat(MESSAGES, hf) == expected
    tok = toklane.load_tokenizer(hf)
    assert tok.apply_chat_template(MESSAGES, return_dict=False) == expected
    assert tok.chat_template == hf.chat_template
    hf.chat_template = "changed"  # the object's current template is read by the functions that get the object
    assert toklane.render_chat(MESSAGES, hf) == "changed"


def test_bundled_tokenizers_render_their_family_format_unless_a_template_is_given():
    for name in ("qwen3", "llama3", "deepseek-v4", "gpt-oss"):
        assert toklane.load_tokenizer(name).chat_template is None
    # a template given for a bundled tokenizer sees that model's special tokens
    assert toklane.render_chat(MESSAGES, "llama3", chat_template="{{ bos_token }}|{{ eos_token }}") == (
        "<|begin_of_text|>|<|eot_id|>"
    )
    got = toklane.encode_chat(MESSAGES, "llama3", chat_template=template("llama3.1"), add_generation_prompt=True)
    assert got == toklane.encode_chat(MESSAGES, "llama3", add_generation_prompt=True)  # the fast path is that template


def test_no_template_and_no_format_is_a_clear_error():
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel

    bare = Tokenizer(WordLevel({"a": 0, "[UNK]": 1}, unk_token="[UNK]"))
    with pytest.raises(ChatTemplateError, match=r"has no chat template .* pass chat_template="):
        toklane.count_tokens(MESSAGES, bare)
    assert toklane.render_chat(MESSAGES[:1], bare, chat_template="{{ messages[0].role }}") == "system"
