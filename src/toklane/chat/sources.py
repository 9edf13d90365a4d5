"""Where a tokenizer's own chat template comes from, and the special tokens a template sees.

transformers' rules, as ``AutoTokenizer.from_pretrained(folder)`` applies them:

* a folder's ``chat_template.jinja`` (the default template) and ``additional_chat_templates/*.jinja``
  (named ones), when present, win over ``tokenizer_config.json``;
* else ``tokenizer_config.json``'s ``chat_template``: a string, or a list of ``{"name", "template"}``
  (named templates, ``default`` and ``tool_use`` among them);
* the special tokens (``bos_token``, ``eos_token``, ``unk_token``, ``sep_token``, ``pad_token``,
  ``cls_token``, ``mask_token``) from ``tokenizer_config.json``, missing ones from
  ``special_tokens_map.json``: a template reads them as variables.

The folder is the one holding the file the tokenizer was loaded from (a tokenizer loaded from
``folder/`` or ``folder/tokenizer.json``). A live transformers tokenizer's ``chat_template`` and
``special_tokens_map`` are read when toklane wraps it. Bundled tokenizers have no template of their
own (their family formats render them) unless their table row names one; their special tokens are
those of the models' own configs.

The files are read once per tokenizer and read again only when one of them changes (a stat per
file per render); what was read is kept with the tokenizer, weakly.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ChatTemplateError

if TYPE_CHECKING:
    from ..tokenizer import Tokenizer

SPECIAL_KEYS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
#: Largest template or config file read (a tokenizer_config.json holding a vocabulary can be large).
MAX_FILE_BYTES = 64 << 20

#: The models' own chat templates (a name or the text) of bundled tokenizers that bundle one, by name: none
#: yet -- each renders its family format (toklane.chat.formats) unless ``chat_template=`` is given.
BUNDLED_TEMPLATES: dict[str, str] = {}

#: The special tokens of the bundled tokenizers' models (their tokenizer_config.json).
BUNDLED_SPECIALS: dict[str, dict[str, str]] = {
    "qwen3.6": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
    "qwen3": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
    "llama3": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    "deepseek-v4": {
        "bos_token": "<｜begin▁of▁sentence｜>",
        "eos_token": "<｜end▁of▁sentence｜>",
        "pad_token": "<｜end▁of▁sentence｜>",
    },
    "o200k_harmony": {"bos_token": "<|startoftext|>", "eos_token": "<|return|>", "pad_token": "<|endoftext|>"},
    "mistral-tekken": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"},
    "mistral-v3": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"},
    "mistral-v7": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"},
    "cl100k_base": {"eos_token": "<|endoftext|>"},
    "o200k_base": {"eos_token": "<|endoftext|>"},
}


@dataclass(frozen=True)
class OwnTemplate:
    """A tokenizer's own chat template(s) and special tokens."""

    #: The template text, or named templates (``{"default": ..., "tool_use": ...}``), or None.
    template: str | dict[str, str] | None
    specials: Mapping[str, str]
    #: Where it came from, for messages (``/models/x/chat_template.jinja``).
    origin: str = ""


_NONE = OwnTemplate(None, {})


def _token_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("content"), str):
        return value["content"]
    return None


def _specials_of(*configs: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for config in configs:
        for key in SPECIAL_KEYS:
            if key not in out:
                text = _token_text(config.get(key))
                if text is not None:
                    out[key] = text
    return out


def named_templates(value: Any, origin: str) -> str | dict[str, str] | None:
    """A ``chat_template`` value as transformers reads it: a string, or named templates from a list
    of ``{"name", "template"}`` (or a mapping); anything else is an error naming ``origin``."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        items = list(value.items())
    elif isinstance(value, list):
        items = []
        for k, entry in enumerate(value):
            if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
                raise ChatTemplateError(
                    origin, None, f"chat_template[{k}] must be an object with 'name' and 'template'"
                )
            items.append((entry["name"], entry.get("template")))
    else:
        raise ChatTemplateError(origin, None, f"chat_template must be a string or a list, got {type(value).__name__}")
    out = {}
    for name, text in items:
        if not isinstance(text, str):
            raise ChatTemplateError(origin, None, f"chat template {name!r} must be a string")
        out[str(name)] = text
    return out


def _read_text(path: Path) -> str:
    with open(path, "rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ChatTemplateError(str(path), None, f"is larger than {MAX_FILE_BYTES >> 20} MB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ChatTemplateError(str(path), None, f"is not UTF-8 text (byte {exc.start})") from None


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(_read_text(path))
    except (ValueError, RecursionError) as exc:
        raise ChatTemplateError(str(path), None, f"is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ChatTemplateError(str(path), None, "must hold a JSON object")
    return data


def read_folder(folder: Path) -> OwnTemplate:
    """The chat template(s) and special tokens a folder holds (transformers' rules, module docstring)."""
    config: dict[str, Any] = {}
    specials_map: dict[str, Any] = {}
    if (folder / "tokenizer_config.json").is_file():
        config = _read_json(folder / "tokenizer_config.json")
    if (folder / "special_tokens_map.json").is_file():
        specials_map = _read_json(folder / "special_tokens_map.json")
    specials = _specials_of(config, specials_map)
    files: dict[str, str] = {}
    origin = str(folder / "tokenizer_config.json")
    if (folder / "chat_template.jinja").is_file():
        files["default"] = _read_text(folder / "chat_template.jinja")
        origin = str(folder / "chat_template.jinja")
    extra = folder / "additional_chat_templates"
    if extra.is_dir():
        for path in sorted(extra.glob("*.jinja")):
            files[path.name.removesuffix(".jinja")] = _read_text(path)
        origin = str(folder / "chat_template.jinja") if "default" in files else str(extra)
    if files:
        template: str | dict[str, str] | None = files["default"] if list(files) == ["default"] else files
    else:
        template = named_templates(config.get("chat_template"), origin)
    return OwnTemplate(template, specials, origin)


_WATCHED = ("chat_template.jinja", "tokenizer_config.json", "special_tokens_map.json", "additional_chat_templates")


def _signature(paths: tuple[str, ...]) -> tuple[Any, ...]:
    """What changes when one of the watched files does: (mtime, size) of each (``None``: absent), and of
    each file in ``additional_chat_templates/``."""
    sig: list[Any] = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            sig.append(None)
            continue
        sig.append((st.st_mtime_ns, st.st_size))
        if stat.S_ISDIR(st.st_mode):  # additional_chat_templates/
            with contextlib.suppress(OSError):
                sig.extend((e.name, e.stat().st_mtime_ns, e.stat().st_size) for e in os.scandir(path))
    return tuple(sig)


_lock = threading.Lock()
_by_tokenizer: weakref.WeakKeyDictionary[Any, tuple[Any, OwnTemplate]] = weakref.WeakKeyDictionary()
#: Where each tokenizer's template comes from, found once: a fixed OwnTemplate (bundled, or none), or
#: its folder and the watched paths in it (a render then costs one stat per watched file, no more).
_places: weakref.WeakKeyDictionary[Any, OwnTemplate | tuple[Path, tuple[str, ...]]] = weakref.WeakKeyDictionary()
_live: weakref.WeakKeyDictionary[Any, OwnTemplate] = weakref.WeakKeyDictionary()


def remember_live(tok: Tokenizer, obj: Any) -> None:
    """Keep the chat template and special tokens of the transformers tokenizer ``tok`` wraps (read now:
    the wrapper does not keep ``obj``)."""
    template = getattr(obj, "chat_template", None)
    specials_map = getattr(obj, "special_tokens_map", None)
    try:
        template = named_templates(template, f"the chat template of {tok.name!r}")
    except ChatTemplateError:
        template = None
    specials = {k: v for k, v in dict(specials_map or {}).items() if k in SPECIAL_KEYS and isinstance(v, str)}
    if template is not None or specials:
        with _lock:
            _live[tok] = OwnTemplate(template, specials, f"the transformers tokenizer {tok.name!r}")


def _place(tok: Tokenizer) -> OwnTemplate | tuple[Path, tuple[str, ...]]:
    if tok.bundled:
        hook = BUNDLED_TEMPLATES.get(tok.name)
        specials = BUNDLED_SPECIALS.get(tok.name, {})
        return OwnTemplate(hook, specials, f"the bundled tokenizer {tok.name!r}") if hook or specials else _NONE
    source = Path(tok.source)
    try:
        if not source.is_file():
            return _NONE
    except (OSError, ValueError):
        return _NONE
    folder = source.parent
    return folder, tuple(str(folder / name) for name in _WATCHED)


def own_template(tok: Tokenizer) -> OwnTemplate:
    """``tok``'s own chat template(s) and special tokens (an empty :class:`OwnTemplate` when none)."""
    live = _live.get(tok)
    if live is not None:
        return live
    place = _places.get(tok)
    if place is None:
        place = _place(tok)
        with _lock:
            _places[tok] = place
    if isinstance(place, OwnTemplate):
        return place
    folder, paths = place
    sig = _signature(paths)
    cached = _by_tokenizer.get(tok)
    if cached is not None and cached[0] == sig:
        return cached[1]
    found = read_folder(folder)
    with _lock:
        _by_tokenizer[tok] = (sig, found)
    return found


def special_tokens(tok: Tokenizer) -> Mapping[str, str]:
    """The special tokens a chat template of ``tok`` sees (``bos_token``...)."""
    return own_template(tok).specials


def pick(templates: str | dict[str, str] | None, requested: str | None, tools: Any, origin: str) -> str | None:
    """transformers' ``get_chat_template``: ``requested`` names one of the named templates or is a
    template's text; without it the tokenizer's template (``tool_use`` when tools are given and it
    has one, else ``default``)."""
    if isinstance(templates, dict):
        if requested is not None:
            return templates.get(requested, requested)
        if tools is not None and "tool_use" in templates:
            return templates["tool_use"]
        if "default" in templates:
            return templates["default"]
        raise ChatTemplateError(
            origin,
            None,
            f"holds several chat templates and none is named 'default'; pass chat_template= one of "
            f"{', '.join(sorted(templates))} (or a template's text)",
        )
    return requested if requested is not None else templates
