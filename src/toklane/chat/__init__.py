"""Chat rendering: conversations laid out as a model's prompt.

- :mod:`.messages` -- OpenAI-style messages, checked at the edge;
- :mod:`.tools` -- tool definitions, checked, and the families' tool prompts
  (:mod:`.harmony_tools` for gpt-oss's TypeScript-like signatures);
- :mod:`.formats` -- the family formats: hand-written fast paths for the bundled tokenizers;
- :mod:`.templates` -- models' own Jinja templates, rendered as transformers renders them, safely;
- :mod:`.sources` -- where a tokenizer's own template is found (its folder, its transformers object);
- :mod:`.render` -- which renderer a request gets, and the rendered prompt.

The public functions are :func:`toklane.render_chat`, :func:`toklane.encode_chat`,
:func:`toklane.count_tokens`, :func:`toklane.truncate_messages` and
:meth:`toklane.Tokenizer.apply_chat_template`.
"""

from .formats import FORMAT_OF_BUNDLED, FORMATS, ChatFormat, chat_format_for
from .messages import message_text, validate_messages
from .render import Rendered, Renderer, render, renderer_for
from .templates import compile_template
from .tools import validate_tools

__all__ = [
    "FORMATS",
    "FORMAT_OF_BUNDLED",
    "ChatFormat",
    "Rendered",
    "Renderer",
    "chat_format_for",
    "compile_template",
    "message_text",
    "render",
    "renderer_for",
    "validate_messages",
    "validate_tools",
]
