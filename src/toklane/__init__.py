"""toklane: the token layer for LLM serving engines, RL rollout workers and agent frameworks.

Tokenizer and counting names are imported eagerly; parsers and decode-loop
helpers (and numpy with them) on first use, so ``import toklane`` stays light.
"""

from __future__ import annotations

from ._lazy import lazy_exports
from .counting import count_tokens, encode_chat, render_chat, truncate_messages
from .decoding import IncrementalDetokenizer
from .errors import (
    ChatTemplateError,
    InvalidArgumentError,
    InvalidMessagesError,
    InvalidTokenIdError,
    InvalidToolsSchemaError,
    MissingTokenError,
    TokenizerLoadError,
    ToklaneError,
    UnknownFormatError,
    UnknownTokenizerError,
)
from .release import __version__
from .tokenizer import Tokenizer, bundled_names, load_tokenizer

# Public names provided by subpackages, imported on first attribute access.
_LAZY = {
    "get_parser": "toklane.parsing",
    "parse": "toklane.parsing",
    "parse_batch": "toklane.parsing",
    "reasoning_formats": "toklane.parsing",
    "tool_formats": "toklane.parsing",
    "format_catalog": "toklane.parsing",
    "StreamParser": "toklane.parsing",
    "Delta": "toklane.parsing",
    "ToolCallDelta": "toklane.parsing",
    "ParseResult": "toklane.parsing",
    "ToolCall": "toklane.parsing",
    "StopMatcher": "toklane.decoding",
    "StopResult": "toklane.decoding",
    "MarkerScanner": "toklane.decoding",
    "ThinkingBudget": "toklane.decoding",
    "PenaltyState": "toklane.decoding",
    "Conversation": "toklane.rollout",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "ChatTemplateError",
    "IncrementalDetokenizer",
    "InvalidArgumentError",
    "InvalidMessagesError",
    "InvalidTokenIdError",
    "InvalidToolsSchemaError",
    "MissingTokenError",
    "Tokenizer",
    "TokenizerLoadError",
    "ToklaneError",
    "UnknownFormatError",
    "UnknownTokenizerError",
    "__version__",
    "bundled_names",
    "count_tokens",
    "encode_chat",
    "load_tokenizer",
    "render_chat",
    "truncate_messages",
    *_LAZY,
]
