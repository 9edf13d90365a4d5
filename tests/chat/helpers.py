"""Shared by the chat tests: the real templates (test data), generated conversations, and the
reference rendering (transformers' own ``render_jinja_template``, as ``apply_chat_template`` calls it)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from toklane.chat.messages import template_messages

TEMPLATES = Path(__file__).parent / "templates"

#: The special tokens each template's model configures (what its tokenizer_config.json sets).
_SPECIALS = {
    "qwen": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
    "qwq": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
    "llama": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    "hermes": {"bos_token": "<|begin_of_text|>", "eos_token": "<|im_end|>"},
    "deepseek": {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>"},
    "gpt-oss": {"bos_token": "<|startoftext|>", "eos_token": "<|return|>"},
    "gemma": {"bos_token": "<bos>", "eos_token": "<eos>"},
    "mistral": {"bos_token": "<s>", "eos_token": "</s>"},
    "ministral": {"bos_token": "<s>", "eos_token": "</s>"},
    "glm": {"eos_token": "<|endoftext|>"},
    "kimi": {"bos_token": "[BOS]", "eos_token": "[EOS]"},
    "minimax": {"bos_token": "]~!b[", "eos_token": "[e~["},
}


def template_names() -> list[str]:
    return sorted(p.stem for p in TEMPLATES.glob("*.jinja"))


@cache
def template(name: str) -> str:
    return (TEMPLATES / f"{name}.jinja").read_text(encoding="utf-8")


def specials(name: str) -> dict[str, str]:
    family = next((f for f in _SPECIALS if name.startswith(f)), None)
    return dict(_SPECIALS[family]) if family else {"bos_token": "<s>", "eos_token": "</s>"}


def reference(text: str, messages: list[dict[str, Any]], **options: Any) -> str:
    """What transformers renders: ``apply_chat_template(..., tokenize=False)`` on the messages vLLM
    prepares (tool-call arguments as objects), keys holding None dropped as transformers drops them."""
    from transformers.utils.chat_template_utils import render_jinja_template

    prepared = [{k: v for k, v in m.items() if v is not None} for m in template_messages(messages)]
    kwargs = {**options.pop("special_tokens", {}), **options.pop("kwargs", {})}
    (rendered,), _ = render_jinja_template([prepared], chat_template=text, **options, **kwargs)
    return rendered


def outcome(fn: Any) -> tuple[str, Any]:
    """``("ok", value)`` or ``("error", exception)``."""
    try:
        return "ok", fn()
    except Exception as exc:  # either side may raise; the tests compare outcomes
        return "error", exc


# --------------------------------------------------------------------------- generated conversations

_words = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]) | st.sampled_from(["\n", " ", "\t", '"', "\\"]),
    max_size=24,
)
_text = st.one_of(
    _words,
    st.sampled_from(["", " padded ", "\n\nnewlines\n", "<think>\nhmm\n</think>\n\nanswer", "日本語 🚀", "a\nb"]),
)
_name = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True)
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), _words, st.sampled_from([1.5, -0.25]))
_args = st.dictionaries(
    _name, _scalar | st.lists(_scalar, max_size=2) | st.dictionaries(_name, _scalar, max_size=2), max_size=3
)


def _content(text: str, parts: bool) -> Any:
    return [{"type": "text", "text": text}] if parts else text


@st.composite
def conversations(draw: Any, tools: bool = True, parts: bool = True) -> list[dict[str, Any]]:
    """OpenAI-style conversations: an optional system message, user/assistant turns, assistant tool
    calls (arguments as objects or JSON text) and their results, reasoning, text-part content."""
    use_parts = parts and draw(st.booleans())
    out: list[dict[str, Any]] = []
    if draw(st.booleans()):
        out.append({"role": "system", "content": _content(draw(_text), use_parts and draw(st.booleans()))})
    call_id = 0
    for _ in range(draw(st.integers(1, 3))):
        out.append({"role": "user", "content": _content(draw(_text), use_parts and draw(st.booleans()))})
        if draw(st.integers(0, 4)) == 0:
            break  # ends on a user turn
        msg: dict[str, Any] = {"role": "assistant", "content": draw(_text)}
        if draw(st.booleans()):
            msg["reasoning_content"] = draw(_text)
        n_calls = draw(st.integers(0, 2)) if tools else 0
        if n_calls:
            if draw(st.booleans()):
                msg["content"] = draw(st.sampled_from([None, ""]))
            calls = []
            for _ in range(n_calls):
                call_id += 1
                args = draw(_args)
                as_text = draw(st.booleans())
                import json

                calls.append(
                    {
                        "id": f"call{call_id:05d}",
                        "type": "function",
                        "function": {"name": draw(_name), "arguments": json.dumps(args) if as_text else args},
                    }
                )
            msg["tool_calls"] = calls
        out.append(msg)
        for call in msg.get("tool_calls", []):
            out.append({"role": "tool", "tool_call_id": call["id"], "content": draw(_text)})
    return out


def _property() -> Any:
    return st.fixed_dictionaries(
        {"type": st.sampled_from(["string", "integer", "boolean", "number"])},
        optional={"description": _words},
    )


tool_sets = st.lists(
    st.builds(
        lambda name, desc, props, req: {
            "type": "function",
            "function": {
                "name": name,
                "description": desc,
                "parameters": {"type": "object", "properties": props, "required": sorted(props)[:req]},
            },
        },
        _name,
        _words,
        st.dictionaries(_name, _property(), max_size=3),
        st.integers(0, 2),
    ),
    min_size=1,
    max_size=2,
)


# ---------------------------------------------------------------- transformers tokenizers (bundled vocabularies)

_PATTERNS = {"qwen3": "QWEN2", "qwen3.6": "QWEN3_5", "llama3": "LLAMA3"}
_cache_dir: Path | None = None


def use_cache_dir(path: Path) -> None:
    global _cache_dir
    _cache_dir = path


def _tokenizer_json(name: str) -> Path:
    """``name``'s vocabulary as a tokenizer.json (ranks + the family's pattern, NFC for Qwen), as
    transformers' ``TikTokenConverter`` converts a tiktoken file; written once, kept in pytest's cache."""
    import base64
    import hashlib
    import json as _json
    import os
    import tempfile
    from importlib import metadata

    import toklane
    from toklane.tokenizer import patterns

    tok = toklane.load_tokenizer(name)
    pattern = getattr(patterns, _PATTERNS[name])
    key = [name, pattern, tok.vocab_size, [[t.id, t.content, t.special] for t in tok.added_tokens]]
    key += [metadata.version(d) for d in ("tokenizers", "transformers")]
    digest = hashlib.sha256(_json.dumps(key).encode()).hexdigest()[:16]
    folder = _cache_dir or Path(tempfile.gettempdir())
    path = folder / f"chat-{name}-{digest}.tokenizer.json"
    if path.exists():
        return path
    from tokenizers import AddedToken, normalizers
    from transformers.convert_slow_tokenizer import TikTokenConverter

    added = {t.id for t in tok.added_tokens}
    with tempfile.NamedTemporaryFile("wb", suffix=".tiktoken", delete=False) as f:
        for i, data in enumerate(tok.token_bytes_table):
            if data is not None and i not in added:
                f.write(base64.b64encode(data) + b" " + str(i).encode() + b"\n")
    try:
        backend = TikTokenConverter(vocab_file=f.name, pattern=pattern).converted()
    finally:
        os.unlink(f.name)
    if name.startswith("qwen"):
        backend.normalizer = normalizers.NFC()
    backend.add_tokens([AddedToken(t.content, special=t.special, normalized=False) for t in tok.added_tokens])
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    os.close(fd)
    backend.save(tmp)
    os.replace(tmp, path)
    return path


@cache
def hf_tokenizer(name: str) -> Any:
    """A transformers tokenizer with the ids of toklane's bundled ``name``."""
    from transformers import PreTrainedTokenizerFast

    import toklane

    if name == "deepseek-v4":
        return PreTrainedTokenizerFast(tokenizer_file=toklane.load_tokenizer(name).source)
    return PreTrainedTokenizerFast(tokenizer_file=str(_tokenizer_json(name)))
