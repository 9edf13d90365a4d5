"""The service's process heap under large requests: the collector's full passes, and memory given back.

A large body builds a million objects or more (its JSON, its validated model,
the work's own), and CPython's collector runs a full pass over every tracked
object each time the old generation has grown by a quarter: building the objects
of one 12 MB body took a dozen full passes here, the last ones the longest (each
reads every tracked object), every one holding the GIL, so no other request
moved meanwhile (the event loop included). :func:`large_work` defers the full
passes while any large request is being decoded, validated or worked on (the
young generations are still collected as usual); the first full pass after the
last one ends sees the heap without them. Garbage in reference cycles that
outlives the young generations in that time waits for that pass. Its first use
also moves the objects the process holds by then (its tokenizers' tables,
modules) out of the collector's sight, after one full pass (``gc.freeze``): each
later full pass, which would otherwise read them all again, then reads only what
came after.

glibc keeps the memory freed by a large request's objects in its arenas:
:func:`large_request_done` returns it to the system (``malloc_trim``) once the
last large request in flight is answered, and while large requests keep coming,
after each one at most once per :data:`TRIM_INTERVAL_S`. :func:`limit_arenas`
(called by ``create_app``) keeps glibc to :data:`MALLOC_ARENAS` arenas instead
of up to 8 per core, one per thread, whose free memory ``malloc_trim`` could
not all give back. 64 concurrent 15.6 MB ``/v1/count`` texts left the process
at 590 MB, from 176 MB; with the trim alone at 290 MB; with both at 177-179 MB.
CPython's own allocator keeps a 1 MiB arena of small objects while any object
in it lives, which no trim reaches: see the README's limits notes.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
from pydantic import BaseModel

__all__ = [
    "LARGE_BODY_BYTES",
    "MALLOC_ARENAS",
    "TRIM_INTERVAL_S",
    "give_back",
    "large_request_done",
    "large_request_started",
    "large_work",
    "limit_arenas",
    "release",
]

_lock = threading.Lock()
_active = 0
_saved: tuple[int, int, int] | None = None
_frozen = False
_NEVER = 1 << 30  # a full pass is due after this many young ones: never, in practice


@contextlib.contextmanager
def large_work() -> Iterator[None]:
    """While inside (in any thread), the collector makes no full pass; young passes go on."""
    global _active, _saved, _frozen
    with _lock:
        if not _frozen:  # once per process: the long-lived objects leave the full passes
            _frozen = True
            gc.collect()
            gc.freeze()
        if _active == 0:
            _saved = gc.get_threshold()
            gc.set_threshold(_saved[0], _saved[1], _NEVER)
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0 and _saved is not None:
                gc.set_threshold(*_saved)
                _saved = None


#: Items dropped at a time by :func:`release` (each drop frees them in one C call, the GIL held).
RELEASE_ITEMS = 2048


def release(box: list[Any]) -> None:
    """Empty ``box``, freeing the objects only its items hold a few thousand at a time, so that no one
    deallocation holds the GIL for long: dropping the last reference to a million objects frees them
    all in one C call (a long pause for a large body's messages). Containers (lists, dicts, pydantic
    models) that something else still refers to are left as they are."""
    stack = box[::-1]
    box.clear()
    while stack:
        obj = stack.pop()
        if sys.getrefcount(obj) > 2:  # this name and the call's argument: someone else holds it
            continue
        if isinstance(obj, BaseModel):
            stack.extend(v for v in (*obj.__dict__.values(), *(obj.__pydantic_extra__ or {}).values()) if _nested(v))
        elif type(obj) is list:
            while len(obj) > RELEASE_ITEMS:
                tail = obj[-RELEASE_ITEMS:]
                del obj[-RELEASE_ITEMS:]
                stack.extend(v for v in tail if _nested(v))
                del tail
        elif type(obj) is dict:
            keys = list(obj)
            for start in range(0, len(keys), RELEASE_ITEMS):
                for key in keys[start : start + RELEASE_ITEMS]:
                    value = obj.pop(key)
                    if _nested(value):
                        stack.append(value)
                del value
        del obj


def _nested(value: Any) -> bool:
    return isinstance(value, BaseModel) or (type(value) in (list, dict) and len(value) > 8)


#: The least time between two ``malloc_trim`` calls (each walks glibc's arenas: milliseconds).
TRIM_INTERVAL_S = 1.0
_last_trim = 0.0


def _malloc_trim() -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to give back this way
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_trim = _malloc_trim()

#: glibc malloc arenas the process may use (``M_ARENA_MAX``, as ``MALLOC_ARENA_MAX=2`` in the environment).
MALLOC_ARENAS = 2
_M_ARENA_MAX = -8  # mallopt's parameter number (malloc.h)


def limit_arenas() -> bool:
    """Keep glibc to :data:`MALLOC_ARENAS` arenas from now on, process-wide (arenas made before stay);
    whether it applied (False where the C library is not glibc)."""
    try:
        mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_ARENA_MAX, MALLOC_ARENAS))


def give_back(force: bool = False) -> bool:
    """Return the heap's free memory to the system (glibc's ``malloc_trim(0)``; ctypes releases the GIL
    while it runs). Does nothing without glibc, or unless ``force`` within :data:`TRIM_INTERVAL_S` of
    the last call; returns whether it trimmed."""
    global _last_trim
    now = time.monotonic()
    with _lock:
        if _trim is None or (not force and now - _last_trim < TRIM_INTERVAL_S):
            return False
        _last_trim = now
    _trim(0)
    return True


#: Requests with at least this many body bytes are large (their memory is given back after them).
LARGE_BODY_BYTES = 1 << 20
_large_requests = 0


def large_request_started() -> None:
    """A request's body reached :data:`LARGE_BODY_BYTES` (call from the event loop)."""
    global _large_requests
    _large_requests += 1


async def large_request_done() -> None:
    """A large request was answered (call from the event loop): give the heap's free memory back, in a
    worker thread (outside the app's pool); after the last large request in flight, whenever it was
    last done."""
    global _large_requests
    _large_requests -= 1
    await anyio.to_thread.run_sync(give_back, _large_requests == 0)
