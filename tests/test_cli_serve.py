"""`toklane serve` start-up, run as a real subprocess: a taken port fails at once (before any
tokenizer is loaded) in one line; a start logs the preloaded models and the docs URL; every
command's help shows its options' defaults."""

from __future__ import annotations

import argparse
import os
import select
import socket
import subprocess
import sys
import time

import httpx

from tests.server.live import free_port, stop
from toklane.cli import build_parser


def test_taken_port_is_one_line_before_any_preloading():
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        # The model would fail to load: the port error coming first shows nothing was loaded.
        cmd = [sys.executable, "-m", "toklane.cli", "serve", "--port", str(port), "--model", "/no/such/tokenizer.json"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc
    assert proc.stderr == f"toklane: error: port {port} on 127.0.0.1 is in use; choose another with --port\n"
    assert proc.stdout == ""


def test_start_logs_preloaded_models_and_docs_url():
    port = free_port()
    cmd = [sys.executable, "-m", "toklane.cli", "serve", "--port", str(port), "--model", "llama3", "--model", "gpt-4o"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert proc.stderr is not None
        log = ""
        deadline = time.monotonic() + 120
        while "/docs" not in log:
            ready, _, _ = select.select([proc.stderr], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"no docs URL logged: {log}"
            data = os.read(proc.stderr.fileno(), 65536)
            assert data, f"serve exited: {log}"
            log += data.decode()
        assert "toklane: loaded llama3 (128,256 tokens)" in log
        assert "toklane: loaded gpt-4o as o200k_base (200,000 tokens)" in log
        url = f"http://127.0.0.1:{port}/docs"
        assert "default model llama3" in log and url in log
        deadline = time.monotonic() + 60
        while True:
            try:
                assert httpx.get(url, timeout=5).status_code == 200
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and proc.poll() is None, "server did not start"
                time.sleep(0.2)
    finally:
        stop(proc)


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_option_shows_its_default():
    commands = _subcommands(build_parser())
    assert set(commands) >= {"serve", "parse", "count", "models", "formats", "bench"}
    for name, command in commands.items():
        formatter = command._get_formatter()
        for action in command._actions:
            if action.nargs == 0 or action.required:  # flags, and options that have no default
                continue
            text = formatter._expand_help(action)
            assert "default" in text, (name, action.dest, text)
    help_text = subprocess.run(
        [sys.executable, "-m", "toklane.cli", "serve", "--help"], capture_output=True, text=True, timeout=60
    ).stdout
    for shown in ("(default: 127.0.0.1)", "(default: 8000)", "(default: qwen3.6)", "(default: 512)"):
        assert shown in " ".join(help_text.split()), shown


def test_bad_host_or_port_is_one_line_before_any_preloading():
    for args, line in [
        (("--port", "99999"), "port 99999 is out of range; choose one in 0-65535 with --port"),
        (("--host", "127.0.0.1", "--port", "-1"), "port -1 is out of range; choose one in 0-65535 with --port"),
    ]:
        cmd = [sys.executable, "-m", "toklane.cli", "serve", *args, "--model", "/no/such/tokenizer.json"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc
        assert proc.stderr.startswith(f"toklane: error: {line}"), proc.stderr
