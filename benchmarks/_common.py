"""Helpers shared by the benchmark scripts: timing and table printing."""

from __future__ import annotations

import contextlib
import gc
import os
import socket
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from toklane.cli import bench_requirements_error

# Before any benchmark dependency is imported: a missing one is one line naming the bench extra
# (exit status 2), not a traceback. Every script imports this module before its other imports.
if (_missing := bench_requirements_error()) is not None:
    print(f"{Path(sys.argv[0]).name}: error: {_missing}", file=sys.stderr)
    sys.exit(2)

from rich.console import Console
from rich.table import Table


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off inside the block (timed code), restored after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now (for a server a benchmark starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def best_time(fn: Callable[[], object], *, repeat: int = 5, number: int = 1) -> float:
    """Best-of-``repeat`` seconds per call (each sample averages ``number`` calls)."""
    samples = []
    with gc_paused():
        for _ in range(repeat):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            samples.append((time.perf_counter() - t0) / number)
    return min(samples)


def best_times_interleaved(fns: dict[str, Callable[[], object]], *, repeat: int = 7) -> dict[str, float]:
    """Best-of-``repeat`` seconds per call for each function, timed in alternating rounds.

    Alternating keeps a burst of load on a shared machine from landing on one contender only,
    and each round starts with the next contender, so none always runs right after the same
    one (a slow peer that frees a large result leaves the allocator cold for whoever follows).
    """
    best = dict.fromkeys(fns, float("inf"))
    order = list(fns.items())
    with gc_paused():
        for r in range(repeat):
            k = r % len(order)
            for key, fn in order[k:] + order[:k]:
                t0 = time.perf_counter()
                fn()
                best[key] = min(best[key], time.perf_counter() - t0)
    return best


def median_time(fn: Callable[[], object], *, repeat: int = 7, number: int = 1) -> float:
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - t0) / number)
    return statistics.median(samples)


def fmt_seconds(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    if s >= 1e-6:
        return f"{s * 1e6:.2f} µs"
    return f"{s * 1e9:.0f} ns"


def rss_bytes() -> int:
    """Resident set size of this process (Linux)."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def machine_note() -> str:
    return f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}; shared machine: compare ratios, not absolutes"


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[object]], note: str = "") -> None:
    table = Table(title=title, caption=note or machine_note(), show_lines=False)
    for i, col in enumerate(columns):
        table.add_column(col, justify="left" if i == 0 else "right", overflow="fold")
    for row in rows:
        table.add_row(*(str(c) for c in row))
    console = Console()
    # On a terminal, its width (120 at least); redirected to a file, as wide as the table needs.
    if console.is_terminal:
        Console(width=max(120, console.width)).print(table)
    else:
        wide = Console(width=1000)
        Console(width=min(1000, wide.measure(table).maximum)).print(table)


def sample_text(megabytes: float = 1.0) -> str:
    """Real, mixed text: standard-library source code, prose from its docstrings, and multilingual lines."""
    import json as _json  # noqa: F401  (its source is part of the sample)

    root = Path(os.__file__).parent
    parts: list[str] = []
    size = 0
    target = int(megabytes * 1_000_000)
    multilingual = (
        "Le tokeniseur découpe le texte en unités. 分词器把文本切分成词元。トークナイザーはテキストを分割します。"
        " 토크나이저는 텍스트를 나눕니다. Токенизатор разбивает текст на токены. 🚀🔥👍\n"
    )
    for path in sorted(root.glob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        parts.append(text)
        parts.append(multilingual)
        size += len(text.encode()) + len(multilingual.encode())
        if size >= target:
            break
    return "".join(parts)
