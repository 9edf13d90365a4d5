"""HTTP service: requests/s and p50/p99 latency for tokenize and parse at 1, 8 and 64
concurrent connections, beside the in-process cost of the same work.

Starts ``toklane serve`` on loopback in a subprocess and drives it from this
process over keep-alive connections with a minimal asyncio HTTP/1.1 client.
Client and server share the machine's cores, so req/s and latency include the
client's cost; "server CPU / req" is the service's own CPU time per request
(from /proc), to read beside the in-process cost of the same work.

    python benchmarks/service.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import best_time, fmt_seconds, free_port, print_table

# isort: split
# _common first: it names the bench extra in one line when httpx or another dependency is missing.
import httpx

import toklane

MODEL = "qwen3.6"
TEXT = (
    "The service tokenizes text for gateways and agent frameworks. 日本語のテキストも扱います。 "
    "def handler(request):\n    return json.dumps({'ok': True})\n"
) * 8
OUTPUT = "<think>\nThe user asks for the weather in two cities; I will call the tool twice.\n</think>\n\n" + "".join(
    f'<tool_call>\n{{"name": "get_weather", "arguments": {{"city": "{c}", "unit": "celsius", "days": 3}}}}\n'
    "</tool_call>\n"
    for c in ("Paris", "Tokyo")
)
PARSE = {"model": MODEL, "text": OUTPUT, "reasoning": "qwen3", "tools": "hermes"}


def _start_server() -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [sys.executable, "-m", "toklane.cli", "serve", "--port", str(port), "--model", MODEL, "--log-level", "error"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("server did not start")


_CONTENT_LENGTH = re.compile(rb"(?i)\r\ncontent-length:\s*(\d+)")


def _raw_request(path: str, body: dict) -> bytes:
    payload = json.dumps(body).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\n\r\n"
    )
    return head.encode() + payload


async def _roundtrip(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: bytes) -> int:
    """One request on a keep-alive connection; the response status (its body is read and dropped)."""
    writer.write(raw)
    head = await reader.readuntil(b"\r\n\r\n")
    length = _CONTENT_LENGTH.search(head)
    if length is None:
        raise RuntimeError(f"response without content-length: {head[:200]!r}")
    await reader.readexactly(int(length.group(1)))
    return int(head[9:12])


async def _drive(url: str, path: str, body: dict, concurrency: int, total: int) -> tuple[float, list[float]]:
    """``total`` requests over ``concurrency`` keep-alive connections, each driven by its own task.

    A minimal HTTP/1.1 client on asyncio streams: a general client (httpx) costs more CPU per
    request than the server does, and at 64 connections it measured itself, not the service.
    """
    host, port = url.removeprefix("http://").split(":")
    raw = _raw_request(path, body)
    latencies: list[float] = []
    remaining = total
    conns = [await asyncio.open_connection(host, int(port)) for _ in range(concurrency)]
    try:
        for reader, writer in conns:  # warm every connection and the path
            if await _roundtrip(reader, writer, raw) != 200:
                raise RuntimeError(f"{path} answered an error")

        async def worker(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal remaining
            while remaining > 0:
                remaining -= 1
                t0 = time.perf_counter()
                status = await _roundtrip(reader, writer, raw)
                latencies.append(time.perf_counter() - t0)
                if status != 200:
                    raise RuntimeError(f"{path} answered {status}")

        t0 = time.perf_counter()
        await asyncio.gather(*(worker(r, w) for r, w in conns))
        elapsed = time.perf_counter() - t0
    finally:
        for _, writer in conns:
            writer.close()
    return elapsed, latencies


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer requests")
    args = parser.parse_args()
    total = 300 if args.quick else 2000

    tok = toklane.load_tokenizer(MODEL)
    in_process = {
        "tokenize": best_time(lambda: tok.encode(TEXT), repeat=5, number=200),
        "parse": best_time(
            lambda: toklane.parse(tok, text=OUTPUT, reasoning="qwen3", tools="hermes"), repeat=5, number=200
        ),
    }
    work = {"tokenize": ("/v1/tokenize", {"model": MODEL, "text": TEXT}), "parse": ("/v1/parse", PARSE)}

    proc, url = _start_server()
    rows = []
    try:
        for name, (path, body) in work.items():
            for concurrency in (1, 8, 64):
                cpu0 = _cpu_seconds(proc.pid)
                elapsed, lat = asyncio.run(_drive(url, path, body, concurrency, total))
                cpu1 = _cpu_seconds(proc.pid)
                served = len(lat) + concurrency  # the warm-up requests ran inside the CPU window too
                server_cpu = "-" if cpu0 is None or cpu1 is None else fmt_seconds((cpu1 - cpu0) / served)
                rows.append(
                    (
                        f"{name} ({len(TEXT if name == 'tokenize' else OUTPUT)} chars)",
                        concurrency,
                        f"{len(lat) / elapsed:,.0f}",
                        fmt_seconds(statistics.median(lat)),
                        fmt_seconds(_pct(lat, 0.99)),
                        server_cpu,
                        fmt_seconds(in_process[name]),
                        f"{1 / in_process[name]:,.0f}",
                    )
                )
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    print_table(
        "toklane service on loopback (client in the same machine)",
        [
            "work",
            "connections",
            "HTTP req/s",
            "p50",
            "p99",
            "server CPU / req",
            "in-process per call",
            "in-process calls/s",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
