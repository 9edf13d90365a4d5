"""Encoding engines: one file per engine behind one small interface (:mod:`.base`), and
:func:`choose_engine`, which picks the fastest exact one for a tokenizer file and says why."""

from .base import AddedToken, Backend, BPEEngine, flatten

__all__ = ["AddedToken", "BPEEngine", "Backend", "flatten"]
