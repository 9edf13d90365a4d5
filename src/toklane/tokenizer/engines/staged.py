"""A faster engine built in the background once it pays, then swapped in.

fastokens encodes much faster than the engine a ``tokenizer.json`` loads with, and faster (more so on
Llama 3's short texts) than the engines the bundled vocabularies load with (quicktok, compiled), but
takes several times HF ``tokenizers``' load time to build (:func:`.fastokens.build_seconds` estimates
it; the bundled ranks tables build through :func:`.fastokens.from_ranks`). So a tokenizer is served
at once by the fast-loading exact engine :func:`.choose.choose_engine` picked, and the faster one is
built later, as a ski-rental: once the work the first engine has done would have taken (by the
estimate below) as long as the build takes. Then the total time is at most about twice the best
choice made in hindsight, however much text follows -- a CLI call on a small file never pays the
build; a server or a corpus job pays it once, early. While counting, each encode call costs one
attribute update more; after the swap, nothing.

The build runs on its own thread (fastokens releases the GIL while it builds); not a daemon one, so a
process that ends during a build waits for it (under a second) rather than abort: Python stops daemon
threads at exit with a forced unwind, which aborts the process where it crosses fastokens' Rust
frames. The new engine must give the ids, the special-token template and the decoded text of the old one on probe texts
(:data:`PROBES`) before it is swapped in; otherwise the first engine stays and
``Tokenizer.engine_reason`` says why. In-flight calls finish on the engine they started on; both are
exact, so which one serves a call never changes its result.

``TOKLANE_FASTOKENS``: ``auto`` (the default: as above), ``eager`` (build right after load),
``manual`` (only when :func:`upgrade_now` is called: the test suite's, so that a shared tokenizer
keeps the engine it loads with), ``off``. :func:`upgrade_now` builds and swaps at once (benchmarks,
tests, a server that wants it before its first request).
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import ToklaneError
from ..files import PROBE_TEXT, is_engine_failure
from .base import Backend

if TYPE_CHECKING:
    from ..core import Tokenizer

#: Texts a new engine must encode (with and without special tokens read as text), template and
#: decode exactly as the engine it replaces before it is swapped in.
PROBES = (
    PROBE_TEXT,
    "",
    " ",
    "  leading and trailing  ",
    "def f(x):\n    return x  # \u00e9\u0301 \U0001f469\u200d\U0001f4bb \u0915\u094d\u0937\n\n\t\u3000end",
)

# Estimated seconds per call and per character of each engine an upgrade starts from (measured on a
# shared 2-core machine; rough on purpose: they only decide when a build starts).
_COSTS = {
    "tokenizers": (25e-6, 0.4e-6),
    "compiled": (1.0e-6, 0.02e-6),
    "quicktok": (1.0e-6, 0.02e-6),
    "tiktoken": (2.0e-6, 0.06e-6),
    "sentencepiece": (8e-6, 0.3e-6),
}


def policy() -> str:
    """``TOKLANE_FASTOKENS``: ``auto``, ``eager``, ``manual`` or ``off`` (anything else reads as ``auto``)."""
    value = os.environ.get("TOKLANE_FASTOKENS", "auto").strip().lower()
    return value if value in ("eager", "manual", "off") else "auto"


class Upgrade:
    """The pending upgrade of one tokenizer: what builds the new backend, its expected cost, and
    the state of the build (``pending``, ``building``, ``done``, ``failed``)."""

    def __init__(self, tok: Tokenizer, build: Callable[[Backend], Backend], seconds: float, target: str) -> None:
        self._tok = weakref.ref(tok)  # (weakly: the tokenizer holds its upgrade, and goes when dropped)
        self._build = build
        self.seconds = seconds
        self.target = target
        self.state = "pending"
        self.error: str | None = None
        self._lock = threading.Lock()
        self._done = threading.Event()

    def start(self) -> None:
        """Start the build on a thread (once; not a daemon: see the module docstring)."""
        with self._lock:
            if self.state != "pending":
                return
            self.state = "building"
        threading.Thread(target=self._run, name=f"toklane-{self.target}-build").start()

    def run_now(self) -> bool:
        """Build and swap on this thread (or wait for a build under way); whether the new engine is in use."""
        with self._lock:
            mine = self.state == "pending"
            if mine:
                self.state = "building"
        if mine:
            self._run()
        else:
            self._done.wait()
        return self.state == "done"

    def _run(self) -> None:
        tok = self._tok()
        if tok is None:  # dropped meanwhile
            self.state = "failed"
            self.error = "the tokenizer was dropped"
            self._done.set()
            return
        current = tok._backend
        inner = current.inner if isinstance(current, CountingBackend) else current
        try:
            new = self._build(inner)
            problem = _differs(inner, new)
        except BaseException as exc:
            if not is_engine_failure(exc):
                raise
            problem = f"building it failed ({type(exc).__name__}: {str(exc)[:200]})"
        if problem is None:
            tok._use_backend(new)
            tok.engine_reason = f"{self.target}: built in the background once it paid; {tok.engine_reason}"
            self.state = "done"
        else:
            if isinstance(current, CountingBackend):
                tok._use_backend(inner)
            tok.engine_reason += f" ({self.target} not used: {problem})"
            self.error = problem
            self.state = "failed"
        self._done.set()


def _every_code_point() -> str:
    """Every code point from U+0020 but the surrogates, in order, in lines of 64 characters: the probe
    that finds a character class the two engines' regex libraries read differently (Unicode versions,
    ``\\w``, ``\\s``)."""
    points = [chr(c) for c in range(0x20, 0x30000) if not 0xD800 <= c < 0xE000]
    return "\n".join("".join(points[k : k + 64]) for k in range(0, len(points), 64))


def _differs(old: Backend, new: Backend) -> str | None:
    """What differs between two backends on :data:`PROBES` and on every code point, or ``None`` (a probe
    the old one cannot encode -- a pattern with a retry limit on it -- is skipped)."""
    for text in (*PROBES, _every_code_point()):
        for split in (False, True):
            try:
                ids = old.encode(text, split)
            except ToklaneError:
                break
            if new.encode(text, split) != ids:
                return f"ids differ on probe text {text[:30]!r}"
            if new.decode(ids, False) != old.decode(ids, False):
                return f"decoded text differs on probe text {text[:30]!r}"
        else:
            if new.with_special_tokens(text) == old.with_special_tokens(text):
                continue

            return f"special-token template differs on probe text {text[:30]!r}"
    return None


class CountingBackend:
    """``inner``, with an estimate of the time its encode calls took; the upgrade starts once that
    reaches the build's expected time."""

    def __init__(self, inner: Backend, upgrade: Upgrade) -> None:
        self.inner = inner
        self.engine = inner.engine
        self.added_tokens = inner.added_tokens
        self._upgrade = upgrade
        per_call, per_char = _COSTS.get(inner.engine, (2e-6, 0.1e-6))
        # Work is counted in characters: a call counts as per_call / per_char of them.
        self._call_chars = per_call / per_char
        self._budget = upgrade.seconds / per_char
        self._spent = 0.0

    def _add(self, chars: float) -> None:
        self._spent += chars  # (unlocked: an approximate count is enough)
        if self._spent >= self._budget:
            self._budget = float("inf")
            self._upgrade.start()

    def encode(self, text: str, split_special_tokens: bool) -> list[int]:
        self._add(len(text) + self._call_chars)
        return self.inner.encode(text, split_special_tokens)

    def encode_batch(self, texts: list[str], split_special_tokens: bool) -> list[list[int]]:
        self._add(sum(map(len, texts)) + self._call_chars * len(texts))
        return self.inner.encode_batch(texts, split_special_tokens)

    def encode_batch_flat(self, texts: list[str], split_special_tokens: bool) -> tuple[Any, Any]:
        self._add(sum(map(len, texts)) + self._call_chars * len(texts))
        return self.inner.encode_batch_flat(texts, split_special_tokens)

    def count(self, text: str) -> int:
        self._add(len(text) + self._call_chars)
        return self.inner.count(text)

    def with_special_tokens(self, text: str) -> list[int]:
        return self.inner.with_special_tokens(text)

    def front(self, owner: Any, method: Any) -> None:
        """None: every encode call is counted here (the upgrade's own front serves once it is in)."""
        return None

    def decode(self, ids: Sequence[int], skip_special_tokens: bool) -> str:
        return self.inner.decode(ids, skip_special_tokens)

    def token_table(self) -> tuple[dict[int, str], dict[int, bytes]]:
        return self.inner.token_table()

    def __getattr__(self, name: str) -> Any:  # the inner backend's other attributes (vocab_size, holes, ...)
        return getattr(self.inner, name)


def schedule(tok: Tokenizer, build: Callable[[Backend], Backend], seconds: float, target: str) -> Upgrade | None:
    """Arrange for ``build(current backend)`` to replace ``tok``'s backend once it pays (see the module
    docstring); ``None`` where ``TOKLANE_FASTOKENS=off``."""
    mode = policy()
    if mode == "off":
        tok.engine_reason += f" ({target} is off: TOKLANE_FASTOKENS=off)"
        return None
    upgrade = Upgrade(tok, build, seconds, target)
    tok._upgrade = upgrade
    if mode == "eager":
        upgrade.start()
    elif mode == "manual":
        tok.engine_reason += f" ({target} on upgrade_now only: TOKLANE_FASTOKENS=manual)"
    else:
        tok._use_backend(CountingBackend(tok._backend, upgrade))
    return upgrade


def upgrade_now(tok: Tokenizer) -> bool:
    """Build ``tok``'s pending faster engine now (or wait for the build under way) and swap it in;
    whether ``tok`` now runs on it. False where it has none or it failed its probes."""
    upgrade = getattr(tok, "_upgrade", None)
    return upgrade is not None and upgrade.run_now()
