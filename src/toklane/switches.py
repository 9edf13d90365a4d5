"""Process-wide switches: every environment variable toklane reads or sets, each with one meaning.

Modules read a switch through this module (or, where noted, in the one module that owns it), never
with their own test of ``os.environ``, and no module writes ``os.environ`` to reach another module
of the same process: an in-process setting is a function call (:func:`set_thread_limit`).

=========================== ============================== ==============================================
variable                    values                         meaning (who reads it, when)
=========================== ============================== ==============================================
``TOKLANE_PURE_PYTHON``     unset, ``""`` or ``"0"``: off; The compiled helpers (``toklane._bpe``,
                            any other value: on            ``_trie``, ``_json``, ``_gather``) are not
                                                           used; the pure Python / numpy paths give the
                                                           same results. :func:`pure_python`, read once
                                                           per module at import (set it before importing
                                                           toklane): ``gather``, ``streammatch``,
                                                           ``parsing.jsonscan``, ``parsing.schema``,
                                                           ``server.body``,
                                                           ``tokenizer.engines.compiled`` and
                                                           ``.quickranks``.
``TOKLANE_THREADS``         a whole number ``n``; anything Most threads one tokenizer engine uses:
                            else (or unset): no limit      ``max(n, 1)``, at most the cores this process
                                                           may run on (the default).
                                                           :func:`thread_limit`, read when an engine is
                                                           built (``tokenizer.engines.base.cpu_count``);
                                                           :func:`set_thread_limit` overrides it in this
                                                           process (corpus workers set 1).
``TOKLANE_FASTOKENS``       ``auto`` (default), ``eager``, When a user's ``tokenizer.json`` moves to the
                            ``manual``, ``off``; anything  fastokens engine
                            else reads as ``auto``         (``tokenizer.engines.staged.policy``, read at
                                                           each load).
``TOKLANE_CACHE_DIR``       a folder; ``off``: no cache;   Where compiled tokenizer images are cached
                            unset or ``""``: the default   (``tokenizer.image_cache.cache_dir``, read at
                                                           each load). Default:
                                                           ``$XDG_CACHE_HOME/toklane``.
``XDG_CACHE_HOME``          a folder; unset or ``""``:     The base of the default cache folder (the XDG
                            ``~/.cache``                   convention; same reader).
``TOKLANE_REASONING``       a reasoning format name        The default format of vLLM's thinking-budget
                                                           logits processor
                                                           (``integrations.vllm_logits.ENV_REASONING``,
                                                           read when vLLM builds it: vLLM constructs
                                                           logits processors itself, so a deployment's
                                                           environment is the channel).
``TOKLANE_SERVE_CONFIG``    JSON, written by               Not a user switch: a parent -> child process
                            ``toklane serve``              channel. ``toklane serve --workers N``
                                                           (``cli.py``, ``server.app.CONFIG_ENV``) writes
                                                           the models and limits there for uvicorn's
                                                           worker processes, which build their app with
                                                           ``server.app.app_from_env`` (uvicorn passes a
                                                           factory's arguments no other way).
``RAYON_NUM_THREADS``,      set to ``1`` / ``false``       Written, not read, by toklane: corpus worker
``TOKENIZERS_PARALLELISM``                                 processes (``corpus.work.single_thread``: the
                                                           local pool's workers and Ray actors) set them
                                                           for HF ``tokenizers``, whose Rust thread pool
                                                           reads them (its only setting), so that N
                                                           workers use N cores.
=========================== ============================== ==============================================
"""

from __future__ import annotations

import os

__all__ = ["pure_python", "set_thread_limit", "thread_limit"]

_thread_limit: int | None = None


def pure_python() -> bool:
    """``TOKLANE_PURE_PYTHON``: true for any value but unset, ``""`` and ``"0"``."""
    return os.environ.get("TOKLANE_PURE_PYTHON", "") not in ("", "0")


def set_thread_limit(threads: int | None) -> None:
    """Most threads a tokenizer engine built from now on in this process may use (at least 1);
    ``None`` returns to ``TOKLANE_THREADS``. Engines already built keep their count."""
    global _thread_limit
    _thread_limit = None if threads is None else max(1, int(threads))


def thread_limit() -> int | None:
    """The limit :func:`set_thread_limit` set, else ``TOKLANE_THREADS``'s (``max(n, 1)`` for a whole
    number ``n``), else ``None`` (every core this process may run on)."""
    if _thread_limit is not None:
        return _thread_limit
    value = os.environ.get("TOKLANE_THREADS", "")
    return max(1, int(value)) if value.isascii() and value.isdigit() else None
