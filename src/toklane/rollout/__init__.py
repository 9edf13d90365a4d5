"""Token-in / token-out conversations for multi-turn RL rollouts (:class:`Conversation`).

The ids a trainer sees are the ids the model produced: generated ids are appended verbatim, and
only what the chat template adds between them (tool results, user turns, the generation prompt,
the end of a turn the model did not emit) is rendered and encoded -- once, as a delta. See
``docs/rollout.md``.
"""

from .conversation import Conversation, Drift, Span, default_formats

__all__ = ["Conversation", "Drift", "Span", "default_formats"]
