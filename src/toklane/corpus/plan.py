"""A planned corpus job, the one thing every engine (the local pool, Ray) is handed to run.

:class:`Job` lives apart from :mod:`.jobs`, which plans and dispatches it, so that an engine
module needs nothing from the dispatcher (and the dispatcher imports an engine, never the reverse).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .inputs import Split
from .records import Options
from .work import Limits

Progress = Callable[[int, int], None]
"""A job's progress callback: ``progress(bytes, tokens)`` as chunks finish."""


@dataclass(frozen=True)
class Job:
    """Everything a corpus job needs, for any engine."""

    model: str  # the tokenizer's name (workers load it by name)
    files: tuple[str, ...]
    splits: tuple[Split, ...]
    opts: Options
    limits: Limits
    workers: int
    local_tokenizer: Any = None  # the loaded tokenizer, for a one-worker run in this process

    @property
    def tokenize(self) -> bool:
        return self.limits.output is not None
